/*
 * club_html.c — the club's pages as HTML, from a snapshot (club.c): the
 * players, a leaderboard per pool, a player's ratings and finished games,
 * a campaign's standings.  Names are hostile input: every stored text is
 * escaped where it goes into the page, and percent-encoded where it goes
 * into an address.  The pages run no script (the server's policy allows
 * none inline) and use one stylesheet, /static/club.css.
 */
#include <stdio.h>
#include <string.h>

#include "club_snapshot.h"
#include "server.h"

/* Games listed on a player's page, newest first. */
#define GAMES_LISTED 100
/* Rows of the players page and of a leaderboard: a page rendered on the
 * loop stays small however many names strangers' games brought in. */
#define ROWS_LISTED 1000

/* A sentence for the rows past ROWS_LISTED, if any. */
static void more_rows(struct cas__jw *w, size_t n, const char *what)
{
    if (n > ROWS_LISTED)
        cas__jw_printf(w, "<p>The first %d of %zu %s are listed.</p>", ROWS_LISTED, n, what);
}

/* text as HTML character data or attribute value: markup characters
 * escaped, control characters shown as U+FFFD. */
static void html(struct cas__jw *w, const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        switch (*p) {
        case '&': cas__jw_raw(w, "&amp;"); break;
        case '<': cas__jw_raw(w, "&lt;"); break;
        case '>': cas__jw_raw(w, "&gt;"); break;
        case '"': cas__jw_raw(w, "&quot;"); break;
        case '\'': cas__jw_raw(w, "&#39;"); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                cas__jw_raw(w, "\xef\xbf\xbd");
            else
                cas__jw_rawn(w, (const char *)p, 1);
        }
    }
}

/* text as one part of an address: every byte but the unreserved ones
 * percent-encoded, so nothing in it is markup or a path separator. */
static void url_part(struct cas__jw *w, const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
            *p == '-' || *p == '.' || *p == '_' || *p == '~')
            cas__jw_rawn(w, (const char *)p, 1);
        else
            cas__jw_printf(w, "%%%02X", *p);
    }
}

static void page_start(struct cas__jw *w, const char *title, int stale, int empty)
{
    cas__jw_raw(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">");
    if (stale)
        cas__jw_raw(w, "<meta http-equiv=\"refresh\" content=\"2\">");
    cas__jw_raw(w, "<title>");
    html(w, title);
    cas__jw_raw(w, " — castellan</title><link rel=\"stylesheet\" href=\"/static/club.css\">"
                   "</head><body><header class=\"club-top\"><nav aria-label=\"Site\">"
                   "<a href=\"/\">Games</a> <a href=\"/club\">Players and ratings</a></nav>"
                   "</header><main><h1>");
    html(w, title);
    cas__jw_raw(w, "</h1>");
    if (empty)
        cas__jw_raw(w, "<p role=\"status\">The ratings are being computed from the store; "
                       "this page reloads in a moment.</p>");
    else if (stale)
        cas__jw_raw(w, "<p role=\"status\" class=\"note\">A game finished a moment ago: "
                       "this page shows the ratings from before it and reloads once they "
                       "are recomputed.</p>");
}

static void page_end(struct cas__jw *w)
{
    cas__jw_raw(w, "</main></body></html>\n");
}

/* A table that scrolls sideways on a narrow screen, reachable by keyboard,
 * up to its first row of column heads. */
static void table_open(struct cas__jw *w, const char *label)
{
    cas__jw_raw(w, "<div class=\"scroll\" role=\"region\" tabindex=\"0\" aria-label=\"");
    html(w, label);
    cas__jw_raw(w, "\"><table><caption>");
    html(w, label);
    cas__jw_raw(w, "</caption><thead><tr>");
}

static void column_head(struct cas__jw *w, const char *head)
{
    cas__jw_raw(w, "<th scope=\"col\">");
    html(w, head);
    cas__jw_raw(w, "</th>");
}

static void table_start(struct cas__jw *w, const char *label, const char *const *heads)
{
    table_open(w, label);
    for (; *heads; heads++)
        column_head(w, *heads);
    cas__jw_raw(w, "</tr></thead><tbody>");
}

static void table_end(struct cas__jw *w)
{
    cas__jw_raw(w, "</tbody></table></div>");
}

static void player_link(struct cas__jw *w, const char *name, int bot)
{
    cas__jw_raw(w, bot ? "<a href=\"/club/bot/" : "<a href=\"/club/player/");
    url_part(w, name);
    cas__jw_raw(w, "\">");
    html(w, name);
    cas__jw_raw(w, bot ? "</a> (bot)" : "</a>");
}

static void pool_link(struct cas__jw *w, const char *name, int mix)
{
    cas__jw_raw(w, mix ? "<a href=\"/club/mix/" : "<a href=\"/club/pool/");
    url_part(w, name);
    cas__jw_raw(w, "\">");
    html(w, name);
    cas__jw_raw(w, "</a>");
}

/* A time as the store writes it, as castellan ratings prints it (its
 * first 19 characters). */
static void when(struct cas__jw *w, const char *time)
{
    char shown[20];
    if (!time) {
        cas__jw_raw(w, "never");
        return;
    }
    snprintf(shown, sizeof shown, "%s", time);
    cas__jw_raw(w, "<time datetime=\"");
    html(w, time);
    cas__jw_raw(w, "\">");
    html(w, shown);
    cas__jw_raw(w, "</time>");
}

static void rating_cells(struct cas__jw *w, const struct cas__rated_player *r)
{
    cas__jw_printf(w, "<td>%.2f</td><td>%.2f</td><td>%.2f</td><td>%zu</td>", r->shown,
                   r->rating.mu, r->rating.sigma, r->games);
}

/* ------------------------------------------------------------ the pages */

static void players_page(const struct cas__club_snapshot *s, struct cas__jw *w)
{
    table_open(w, "Players: rating per pool, games, last seen");
    column_head(w, "Player");
    for (size_t i = 0; i < s->n_pools; i++)
        column_head(w, s->pools[i].name);
    column_head(w, "Games");
    column_head(w, "Last seen");
    cas__jw_raw(w, "</tr></thead><tbody>");
    for (size_t i = 0; i < s->n_players && i < ROWS_LISTED; i++) {
        const struct cas__club_player *p = &s->players[i];
        cas__jw_raw(w, "<tr><td>");
        player_link(w, p->name, p->bot);
        cas__jw_raw(w, "</td>");
        for (size_t pool = 0; pool < s->n_pools; pool++) {
            if (p->rank[pool] < 0)
                cas__jw_raw(w, "<td>not rated</td>");
            else
                cas__jw_printf(w, "<td>%.2f</td>",
                               s->pools[pool].players[p->rank[pool]].shown);
        }
        cas__jw_printf(w, "<td>%zu</td><td>", p->games);
        when(w, p->last_seen);
        cas__jw_raw(w, "</td></tr>");
    }
    table_end(w);
    more_rows(w, s->n_players, "players, by name,");
    cas__jw_raw(w, "<h2>Leaderboards</h2><p>One pool per game, whatever its expansions "
                   "(as <code>castellan ratings</code>):</p><ul>");
    for (size_t i = 0; i < s->n_pools; i++) {
        cas__jw_raw(w, "<li>");
        pool_link(w, s->pools[i].name, 0);
        cas__jw_printf(w, ": %zu games, %zu players</li>", s->pools[i].games,
                       s->pools[i].n_players);
    }
    cas__jw_raw(w, "</ul><p>One pool per game and exact list of expansions (as "
                   "<code>castellan ratings --by mix</code>):</p><ul>");
    for (size_t i = 0; i < s->n_mix; i++) {
        cas__jw_raw(w, "<li>");
        pool_link(w, s->mix[i].name, 1);
        cas__jw_printf(w, ": %zu games</li>", s->mix[i].games);
    }
    cas__jw_raw(w, "</ul><h2>Campaigns</h2><ul>");
    for (size_t i = 0; i < s->n_campaigns; i++) {
        const struct cas__saves_campaign *c = &s->campaigns[i].summary;
        cas__jw_raw(w, "<li><a href=\"/club/campaign/");
        url_part(w, c->name);
        cas__jw_raw(w, "\">");
        html(w, c->name);
        cas__jw_printf(w, "</a>: %zu games, %zu finished</li>", c->games, c->finished);
    }
    cas__jw_raw(w, "</ul>");
}

static void leaderboard(const struct cas__rating_pool *p, struct cas__jw *w)
{
    static const char *const heads[] = {"Rank", "Rating", "Mu", "Sigma", "Games",
                                        "Last played", "Player", NULL};
    char label[512];
    snprintf(label, sizeof label, "%s: %zu game%s, %zu player%s", p->name, p->games,
             p->games == 1 ? "" : "s", p->n_players, p->n_players == 1 ? "" : "s");
    table_start(w, label, heads);
    for (size_t i = 0; i < p->n_players && i < ROWS_LISTED; i++) {
        const struct cas__rated_player *r = &p->players[i];
        cas__jw_printf(w, "<tr><td>%zu</td>", i + 1);
        rating_cells(w, r);
        cas__jw_raw(w, "<td>");
        when(w, r->last_played);
        cas__jw_raw(w, "</td><td>");
        player_link(w, r->name, r->bot);
        cas__jw_raw(w, "</td></tr>");
    }
    table_end(w);
    more_rows(w, p->n_players, "players, best first,");
    cas__jw_raw(w, "<p>Rating is mu &minus; 3 sigma (Weng-Lin, docs/ratings.md): it starts "
                   "at 0 and grows as a player's games make the estimate surer.</p>");
}

static const struct cas__rating_pool *pool_named(const struct cas__rating_pool *pools,
                                                 size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(pools[i].name, name) == 0)
            return &pools[i];
    return NULL;
}

/* The rows of player p's ratings in pools[0..n). */
static void rating_rows(const struct cas__rating_pool *pools, size_t n, int mix,
                        const struct cas__club_player *p, struct cas__jw *w)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < pools[i].n_players; j++) {
            const struct cas__rated_player *r = &pools[i].players[j];
            if (r->bot != p->bot || strcmp(r->name, p->name) != 0)
                continue;
            cas__jw_raw(w, "<tr><td>");
            pool_link(w, pools[i].name, mix);
            cas__jw_printf(w, "</td><td>%zu</td>", j + 1);
            rating_cells(w, r);
            cas__jw_raw(w, "</tr>");
            break;
        }
}

static void game_row(const struct cas__saves_result *g, struct cas__jw *w)
{
    cas__jw_printf(w, "<tr><td><a href=\"/game/%lld/replay.html\">Game %lld</a></td><td>",
                   (long long)g->id, (long long)g->id);
    when(w, g->finished);
    cas__jw_raw(w, "</td><td>");
    html(w, g->game_id);
    if (g->expansions[0]) {
        cas__jw_raw(w, " + ");
        html(w, g->expansions);
    }
    cas__jw_raw(w, "</td><td><ul class=\"seats\">");
    for (size_t i = 0; i < g->n_players; i++) {
        const struct cas__saves_player *p = &g->players[i];
        cas__jw_raw(w, "<li>");
        player_link(w, cas__rating_identity(p), cas__rating_is_bot(p));
        if (p->has_score)
            cas__jw_printf(w, ": %lld", (long long)p->score);
        if ((int)i == g->flagged)
            cas__jw_raw(w, " (flag fell)");
        cas__jw_raw(w, "</li>");
    }
    cas__jw_raw(w, "</ul></td></tr>");
}

static void player_page(const struct cas__club_snapshot *s, const struct cas__host_saved *h,
                        const struct cas__club_player *p, struct cas__jw *w)
{
    cas__jw_raw(w, "<dl class=\"facts\">");
    if (p->reg) {
        cas__jw_raw(w, "<dt>Registered</dt><dd>");
        when(w, p->reg->created_at);
        cas__jw_raw(w, "</dd>");
    }
    cas__jw_printf(w, "<dt>Games played</dt><dd>%zu</dd><dt>Last seen</dt><dd>", p->games);
    when(w, p->last_seen);
    cas__jw_raw(w, "</dd></dl>");
    static const char *const rating_heads[] = {"Pool", "Rank", "Rating", "Mu", "Sigma",
                                               "Games", NULL};
    table_start(w, "Ratings, one pool per game", rating_heads);
    rating_rows(s->pools, s->n_pools, 0, p, w);
    table_end(w);
    table_start(w, "Ratings, one pool per game and exact list of expansions", rating_heads);
    rating_rows(s->mix, s->n_mix, 1, p, w);
    table_end(w);
    static const char *const game_heads[] = {"Replay", "Finished", "Game", "Players and "
                                             "scores", NULL};
    table_start(w, "Finished games, newest first", game_heads);
    size_t listed = 0, hidden = 0;
    for (size_t i = 0; i < p->games; i++) {
        const struct cas__saves_result *g = &s->results[s->game_of[p->first_game + i]];
        if (!cas__club_showable(g, h))
            hidden++;
        else if (listed < GAMES_LISTED && ++listed)
            game_row(g, w);
    }
    table_end(w);
    if (p->games - hidden > listed)
        cas__jw_printf(w, "<p>The newest %zu of %zu games are listed.</p>", listed,
                       p->games - hidden);
    if (hidden)
        cas__jw_printf(w, "<p>%zu game%s played at the terminal, not on this server, "
                       "count in the ratings but are not shown.</p>", hidden,
                       hidden == 1 ? "" : "s");
}

static void campaign_page(const struct cas__club_campaign *c, struct cas__jw *w)
{
    cas__jw_printf(w, "<p>%zu games, %zu finished; last played ", c->summary.games,
                   c->summary.finished);
    when(w, c->summary.last_played);
    cas__jw_raw(w, ".</p>");
    static const char *const heads[] = {"Place", "Player", "Games", "Wins", "Points", NULL};
    table_start(w, "Standings: most wins, then points", heads);
    for (size_t i = 0; i < c->n_standings; i++) {
        const struct cas__saves_standing *st = &c->standings[i];
        cas__jw_printf(w, "<tr><td>%zu</td><td>", i + 1);
        html(w, st->player);
        cas__jw_printf(w, "</td><td>%zu</td><td>%zu</td><td>%lld</td></tr>", st->games,
                       st->wins, (long long)st->points);
    }
    table_end(w);
}

static const struct cas__club_campaign *campaign_named(const struct cas__club_snapshot *s,
                                                       const char *name)
{
    for (size_t i = 0; i < s->n_campaigns; i++)
        if (strcmp(s->campaigns[i].summary.name, name) == 0)
            return &s->campaigns[i];
    return NULL;
}

/* The page of path's prefix, its name after it; 0 when path has another. */
static const char *named(const char *path, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(path, prefix, n) == 0 && path[n] ? path + n : NULL;
}

static unsigned not_found(struct cas__jw *w, const char *what)
{
    page_start(w, "Not found", 0, 0);
    cas__jw_raw(w, "<p>");
    cas__jw_raw(w, what);
    cas__jw_raw(w, " <a href=\"/club\">All players</a>.</p>");
    page_end(w);
    return 404;
}

unsigned cas__club_render(const struct cas__club_snapshot *s,
                          const struct cas__host_saved *h, const char *path, int stale,
                          struct cas__jw *w)
{
    const char *name;
    if (!s) {
        page_start(w, "Players and ratings", 1, 1);
        page_end(w);
        return 503;
    }
    if (!*path || strcmp(path, "/") == 0) {
        page_start(w, "Players and ratings", stale, 0);
        players_page(s, w);
    } else if ((name = named(path, "/pool/")) || (name = named(path, "/mix/"))) {
        int mix = path[1] == 'm';
        const struct cas__rating_pool *p = mix ? pool_named(s->mix, s->n_mix, name)
                                               : pool_named(s->pools, s->n_pools, name);
        if (!p)
            return not_found(w, "No rated game is in that pool.");
        page_start(w, p->name, stale, 0);
        leaderboard(p, w);
    } else if ((name = named(path, "/player/")) || (name = named(path, "/bot/"))) {
        const struct cas__club_player *p = cas__club_find(s, name, path[1] == 'b');
        if (!p)
            return not_found(w, "Nobody of that name has played here.");
        page_start(w, p->name, stale, 0);
        if (p->bot)
            cas__jw_raw(w, "<p>A bot, known by its agent: every seat it played counts "
                           "for it.</p>");
        player_page(s, h, p, w);
    } else if ((name = named(path, "/campaign/"))) {
        const struct cas__club_campaign *c = campaign_named(s, name);
        if (!c)
            return not_found(w, "There is no campaign of that name.");
        page_start(w, c->summary.name, stale, 0);
        campaign_page(c, w);
    } else {
        return not_found(w, "There is no such page.");
    }
    page_end(w);
    return 200;
}
