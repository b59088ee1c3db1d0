/*
 * replay_html.c — a saved game as one self-contained HTML page: the game's
 * own SVG pictures embedded in the page (the host cannot draw any game
 * itself, and a renderer in JavaScript would have to be written again for
 * every game and tile set), each ply's as the changes from the ply before
 * (host/tools/picture_changes.c, what the live table receives too), the
 * action and visible events of each ply, the scores after it, a small
 * chart of the scores over time, and controls to step through it.
 * Nothing is fetched: no network, no external script, style or font.
 */
#include "replay_html.h"
#include "picture.h"

#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "picture_changes.h"
#include "replay_script.h" /* generated: replay_script[] */
#include "revive.h"

/* A JSON string safe inside <script>: '<', '>' and '&' are escaped too,
 * so no embedded text can close the script element. */
static void json_string(FILE *out, const char *text, size_t len)
{
    fputc('"', out);
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", out);
        else if (c < 0x20 || c == '<' || c == '>' || c == '&')
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void html_text(FILE *out, const char *text)
{
    for (; *text; text++) {
        switch (*text) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        default: fputc(*text, out);
        }
    }
}

struct html {
    FILE *out;
    int viewer;
    char *transcript;      /* what the session printed, for the events */
    size_t transcript_len;
    FILE *session_out;     /* a memory stream over transcript */
    size_t read_upto;
    struct cas__picture shown; /* the last ply's picture */
    struct cas__jw changes;
    char *err;
    size_t errlen;
};

/* The events the session printed since the last ply: its lines indented
 * by two spaces, up to the end-of-game report (which starts blank). */
static void write_events(struct html *h)
{
    fflush(h->session_out);
    const char *at = h->transcript + h->read_upto, *end = h->transcript + h->transcript_len;
    int first = 1;
    fputc('[', h->out);
    while (at < end) {
        const char *nl = memchr(at, '\n', (size_t)(end - at));
        size_t len = nl ? (size_t)(nl - at) : (size_t)(end - at);
        if (len == 0)
            break;
        if (len > 2 && at[0] == ' ' && at[1] == ' ') {
            fputs(first ? "" : ",", h->out);
            json_string(h->out, at + 2, len - 2);
            first = 0;
        }
        at += len + (nl != NULL);
    }
    fputc(']', h->out);
    h->read_upto = h->transcript_len;
}

/* JSON text (w's) inside the page's <script>: "</" is already "<\/";
 * "<!" becomes "\u003c!", so no comment can start there. */
static void write_json_in_script(FILE *out, const char *json)
{
    for (const char *lt; (lt = strstr(json, "<!")); json = lt + 1) {
        fwrite(json, 1, (size_t)(lt - json), out);
        fputs("\\u003c", out);
    }
    fputs(json, out);
}

/* The ply's picture: its changes from the last ply's when both are keyed
 * (from no picture when only this one is), else whole. */
static void write_picture(struct html *h, char *svg, size_t len)
{
    struct cas__picture pic;
    cas__picture_take_after(&pic, svg, len, &h->shown);
    cas__jw_cut(&h->changes, 0);
    if (cas__picture_diff(h->shown.keyed ? &h->shown : NULL, &pic, &h->changes) == 0 &&
        !h->changes.b.failed) {
        fputs(",\"changes\":", h->out);
        write_json_in_script(h->out, cas__jw_text(&h->changes));
    } else {
        fputs(",\"svg\":", h->out);
        json_string(h->out, cas__picture_svg(&pic), pic.len);
    }
    cas__picture_free(&h->shown);
    h->shown = pic;
}

static int write_frame(struct html *h, struct cas__revived *r, const char *who,
                       const char *text)
{
    struct cas__session *s = &r->session;
    struct cas__match *m = s->match;
    char *svg;
    size_t len;
    int rc = cas__picture_render(m, s->state, h->viewer, &svg, &len, h->err, h->errlen);
    if (rc != CAS_OK)
        return rc;
    fprintf(h->out, "%s{\"who\":", s->ply ? ",\n" : "");
    json_string(h->out, who, strlen(who));
    fputs(",\"text\":", h->out);
    json_string(h->out, text, strlen(text));
    fputs(",\"events\":", h->out);
    write_events(h);
    fputs(",\"scores\":[", h->out);
    int64_t scores[64] = {0};
    int n = m->nplayers < 64 ? m->nplayers : 64;
    if (m->vt->returns(s->state, scores, (size_t)n) != CAS_OK)
        memset(scores, 0, sizeof scores);
    for (int p = 0; p < n; p++)
        fprintf(h->out, "%s%lld", p ? "," : "", (long long)scores[p]);
    fputc(']', h->out);
    write_picture(h, svg, len);
    fputc('}', h->out);
    return CAS_OK;
}

static int after_action(void *ctx, struct cas__revived *r, size_t i)
{
    struct html *h = ctx;
    const struct cas__saves_action *a = &r->saved->actions[i];
    char who[160];
    int chance = a->actor < 0;
    if (chance)
        snprintf(who, sizeof who, "chance");
    else
        snprintf(who, sizeof who, "%s", r->session.player_names && r->session.player_names[a->actor]
                                            ? r->session.player_names[a->actor]
                                            : cas__match_label(r->session.match, a->actor));
    /* what chance drew is told by the game's events to those who may know */
    const char *text = chance && h->viewer != CAS_VIEWER_OMNISCIENT ? "" : a->text;
    return write_frame(h, r, who, text);
}

static const char page_style[] =
    "<style>\n"
    ":root{--ink:#2a2118;--paper:#f4efe3;--card:#fffdf7;--line:#d8ccb0;--accent:#8a5a1c}\n"
    "*{box-sizing:border-box}\n"
    "body{margin:0;background:var(--paper);color:var(--ink);font:15px/1.4 'DejaVu Sans',"
    "Verdana,sans-serif}\n"
    "header{padding:10px 18px;border-bottom:1px solid var(--line);background:var(--card)}\n"
    "header h1{margin:0;font-size:19px}header p{margin:2px 0 0;color:#6b5b45}\n"
    "main{display:flex;gap:14px;padding:14px;align-items:flex-start}\n"
    "#board{flex:1 1 auto;min-width:0;background:var(--card);border:1px solid var(--line);"
    "border-radius:8px;padding:6px}\n"
    "#board svg{display:block;width:100%;height:auto;max-height:calc(100vh - 120px)}\n"
    "aside{flex:0 0 330px;display:flex;flex-direction:column;gap:10px}\n"
    ".box{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:10px}\n"
    "nav{display:flex;gap:6px;align-items:center;flex-wrap:wrap}\n"
    "button{font:inherit;font-size:16px;min-width:44px;padding:6px 8px 2px;border:1px solid #b9a67e;"
    "border-radius:6px;background:#fbf5e6;color:var(--ink);cursor:pointer}\n"
    "button:hover{background:#f1e4c4}button:disabled{opacity:.4;cursor:default}\n"
    "#slider{width:100%;accent-color:var(--accent)}\n"
    "#plylabel{font-weight:bold;margin-left:auto}\n"
    "#action{font-weight:bold;font-size:16px;min-height:1.4em}\n"
    "#events{margin:6px 0 0;padding-left:18px;min-height:1.4em}#events li{margin:2px 0}\n"
    "#scores{width:100%;border-collapse:collapse}#scores td{padding:2px 4px}\n"
    "#scores td.pts{text-align:right;font-weight:bold}\n"
    ".swatch{display:inline-block;width:12px;height:12px;border-radius:3px;margin-right:6px;"
    "vertical-align:-1px;border:1px solid #0004}\n"
    "#chart{width:100%;height:auto;display:block}\n"
    ".hint{color:#7a6a52;font-size:13px}\n"
    /* a phone: the board above, the controls below it */
    "@media (max-width:760px){main{flex-direction:column;padding:8px;gap:8px}"
    "aside{flex:none;width:100%}#board{width:100%}"
    "#board svg{max-height:70vh}header{padding:8px 10px}header h1{font-size:16px}}\n"
    "</style>\n";

/* A button's picture: one path, drawn in the text colour. */
#define ICON(d)                                                                  \
    "<svg width=\"16\" height=\"16\" viewBox=\"0 0 16 16\" aria-hidden=\"true\"><path d=\"" d \
    "\" fill=\"currentColor\" stroke=\"currentColor\" stroke-width=\"1.5\" "                \
    "stroke-linejoin=\"round\"/></svg>"

/* Its own script runs, nothing else: no script or handler a plugin's
 * picture might carry, nothing fetched, nothing sent. */
static void write_policy(FILE *out, const char *nonce)
{
    fputs("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; ", out);
    if (nonce)
        fprintf(out, "script-src 'nonce-%s'; ", nonce);
    else
        fputs("script-src 'self'; ", out);
    fputs("style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'\">\n"
          "<meta name=\"referrer\" content=\"no-referrer\">\n", out);
}

static void write_head(FILE *out, struct cas__revived *r, const char *title, const char *nonce)
{
    const struct cas__saves_game *g = r->saved;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n", out);
    write_policy(out, nonce);
    fputs("<title>", out);
    html_text(out, title);
    fprintf(out, "</title>\n%s</head>\n<body data-ply=\"\">\n<header><h1>", page_style);
    html_text(out, title);
    fputs("</h1><p>", out);
    for (size_t i = 0; i < g->n_players; i++) {
        fputs(i ? ", " : "", out);
        html_text(out, g->players[i].name);
        fprintf(out, " as ");
        html_text(out, cas__match_label(r->session.match, (int)i));
        fputs(" (", out);
        html_text(out, g->players[i].agent);
        fputs(")", out);
    }
    fprintf(out, "; seed %llu; %zu plies</p></header>\n", (unsigned long long)g->seed,
            g->n_actions);
    fputs("<main>\n<div id=\"board\" aria-live=\"polite\"></div>\n<aside>\n"
          "<div class=\"box\"><nav>"
          "<button id=\"first\" title=\"first (Home)\" aria-label=\"first\">" ICON("M3 2v12M14 2 5 8l9 6z") "</button>"
          "<button id=\"prev\" title=\"previous (left arrow)\" aria-label=\"previous\">" ICON("M12 2 3 8l9 6z") "</button>"
          "<button id=\"next\" title=\"next (right arrow)\" aria-label=\"next\">" ICON("M4 2l9 6-9 6z") "</button>"
          "<button id=\"last\" title=\"last (End)\" aria-label=\"last\">" ICON("M13 2v12M2 2l9 6-9 6z") "</button>"
          "<span id=\"plylabel\"></span></nav>\n"
          "<input id=\"slider\" type=\"range\" min=\"0\" max=\"0\" value=\"0\" "
          "aria-label=\"ply\">\n"
          "<div class=\"hint\">Arrow keys step, Home and End jump.</div></div>\n"
          "<div class=\"box\"><div id=\"action\"></div><ul id=\"events\"></ul></div>\n"
          "<div class=\"box\"><table id=\"scores\"></table>\n"
          "<svg id=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 300 120\" "
          "role=\"img\" aria-label=\"scores over time\"><rect width=\"300\" height=\"120\" "
          "fill=\"#fbf7ec\" stroke=\"#d8ccb0\"/></svg></div>\n"
          "</aside>\n</main>\n", out);
}

static void write_players(FILE *out, struct cas__revived *r)
{
    const struct cas__saves_game *g = r->saved;
    char name[300];
    fputs("<script type=\"application/json\" id=\"players\">[", out);
    for (size_t i = 0; i < g->n_players; i++) {
        snprintf(name, sizeof name, "%s (%s)", g->players[i].name,
                 cas__match_label(r->session.match, (int)i));
        fputs(i ? "," : "", out);
        json_string(out, name, strlen(name));
    }
    fputs("]</script>\n", out);
}

const char *cas__replay_html_script(void)
{
    return replay_script;
}

/* A fresh nonce for the page's inline script: 128 random bits in hex. */
static int make_nonce(char out[33])
{
    unsigned char bits[16];
    if (getrandom(bits, sizeof bits, 0) != (ssize_t)sizeof bits)
        return -1;
    for (size_t i = 0; i < sizeof bits; i++)
        sprintf(out + 2 * i, "%02x", bits[i]);
    return 0;
}

int cas__replay_html_write(struct cas__revived *r, int viewer, const char *title,
                           const char *script_url, FILE *out, char *err, size_t errlen)
{
    struct html h = {.out = out, .viewer = viewer, .err = err, .errlen = errlen};
    cas__jw_init(&h.changes);
    char nonce[33];
    err[0] = '\0';
    if (!script_url && make_nonce(nonce)) {
        snprintf(err, errlen, "the kernel has no randomness to give for the page's nonce");
        return CAS_EIO;
    }
    h.session_out = open_memstream(&h.transcript, &h.transcript_len);
    if (!h.session_out) {
        snprintf(err, errlen, "out of memory");
        return CAS_ENOMEM;
    }
    r->session.out = h.session_out;
    r->session.viewer = viewer;
    write_head(out, r, title, script_url ? NULL : nonce);
    write_players(out, r);
    fputs("<script type=\"application/json\" id=\"plies\">[", out);
    int rc = write_frame(&h, r, "", "");
    if (rc == CAS_OK) {
        rc = cas__revive_replay(r, r->saved->n_actions, 0, after_action, &h);
        if (rc != CAS_OK && !err[0])
            snprintf(err, errlen, "%s", r->error);
    }
    fputs("]</script>\n", out);
    if (script_url) {
        fputs("<script src=\"", out);
        html_text(out, script_url);
        fputs("\"></script>\n", out);
    } else {
        fprintf(out, "<script nonce=\"%s\">\n%s</script>\n", nonce, replay_script);
    }
    fputs("</body>\n</html>\n", out);
    r->session.out = NULL;
    cas__picture_free(&h.shown);
    cas__jw_free(&h.changes);
    fclose(h.session_out);
    free(h.transcript);
    if (rc == CAS_OK && ferror(out)) {
        snprintf(err, errlen, "cannot write the page");
        rc = CAS_EIO;
    }
    return rc;
}
