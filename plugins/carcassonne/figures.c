/*
 * figures.c — figures on the board: who may deploy what where (class,
 * supply, occupancy, farmers option, expansion vetoes), deploying,
 * returning, and the strength a figure adds to its owner's majority.
 *
 * Deployed figures are a short unordered array (at most players x supply);
 * removal swaps the last one in, so callers that remove while walking walk
 * backwards.
 */
#include "carc.h"

int cas__carc_strength(const struct cas_state *s, int fig)
{
    const struct carc_fig *f = &C_FIGS(s)[fig];
    const struct carc_figkind *k = &s->game->fig[f->kind];
    if (s->game->nexp > 0) {
        int answer = cas__carc_hook_strength(s, fig, C_NODES(s)[f->node].root);
        if (answer != CAS_CARC_NO_ANSWER)
            return answer;
    }
    if (k->def.strength_on)
        return k->def.strength_on(s->game->exp[k->exp].xctx, CARC_COF(s), f->player,
                                  C_NODES(s)[f->node].root);
    return k->def.strength;
}

/* Does player have a figure of a kind that needs no escort on the feature
 * with this root?  (An escorted figure stands only beside one.) */
static int has_companion(const struct cas_state *s, int player, int root)
{
    const struct carc_fig *f = C_FIGS(s);
    if (!carc_occupied(s, root))
        return 0;
    for (int i = 0; i < s->nfigs; i++)
        if (f[i].player == player && carc_root(s, f[i].node) == root &&
            !(s->game->fig[f[i].kind].def.flags & CAS_CARC_FIG_ESCORTED))
            return 1;
    return 0;
}

int cas__carc_deploy_legal(const struct cas_state *s, int player, int figkind,
                           int node)
{
    const struct cas_game *g = s->game;
    const struct carc_figkind *k = &g->fig[figkind];
    int cls = cas__carc_feature_class(s, node);
    int root = C_NODES(s)[node].root;
    if (!(k->def.classes & CAS_CARC_CLASS_BIT(cls)))
        return 0;
    if (cls == CAS_CARC_FIELD && !g->farmers)
        return 0;
    if (s->supply[player][figkind] == 0)
        return 0;
    if (!(k->def.flags & CAS_CARC_FIG_JOINS) && carc_occupied(s, root))
        return 0;
    if ((k->def.flags & CAS_CARC_FIG_ESCORTED) && !has_companion(s, player, root))
        return 0;
    if (k->def.can_deploy &&
        k->def.can_deploy(g->exp[k->exp].xctx, CARC_COF(s), player, root))
        return 0;
    return !cas__carc_hook_veto_deploy(s, player, figkind, root);
}

int cas__carc_deploy_actions(const struct cas_state *s, cas_action *buf,
                             size_t cap, size_t *count)
{
    const struct cas_game *g = s->game;
    const struct carc_tile *t = &C_TILES(s)[s->placed];
    const struct carc_kind *k = &g->kinds[t->kind];
    size_t n = 0;
    /* figure kind, then feature, then pass: ascending code order */
    for (int fk = 0; fk < g->nfig; fk++)
        for (int f = 0; s->supply[s->player][fk] && f < k->nf; f++)
            if (cas__carc_deploy_legal(s, s->player, fk, t->node_base + f)) {
                if (n < cap)
                    buf[n] = ACT_DEPLOY_CODE(fk, f);
                n++;
            }
    if (n < cap)
        buf[n] = ACT_MAKE(ACT_PASS);
    n++;
    *count = n;
    return n > cap ? CAS_ENOSPC : CAS_OK;
}

void cas__carc_stand_figure(struct cas_state *s, int player, int figkind, int node)
{
    S_FIGS(s)[s->nfigs++] = (struct carc_fig){.player = (uint8_t)player,
                                              .kind = (uint8_t)figkind,
                                              .node = (uint16_t)node};
    S_NODES(s)[carc_root(s, node)].figs++;
}

void cas__carc_deploy(struct cas_state *s, int player, int figkind, int node)
{
    cas__carc_stand_figure(s, player, figkind, node);
    s->supply[player][figkind]--;
}

void cas__carc_return_figure(struct cas_state *s, int fig)
{
    struct carc_fig *f = S_FIGS(s);
    s->supply[f[fig].player][f[fig].kind]++;
    S_NODES(s)[carc_root(s, f[fig].node)].figs--;
    f[fig] = f[--s->nfigs];
}

void cas__carc_return_escorted(struct cas_state *s)
{
    for (int i = s->nfigs - 1; i >= 0; i--) {
        const struct carc_fig *f = &C_FIGS(s)[i];
        if ((s->game->fig[f->kind].def.flags & CAS_CARC_FIG_ESCORTED) &&
            !has_companion(s, f->player, carc_root(s, f->node)))
            cas__carc_return_figure(s, i);
    }
}
