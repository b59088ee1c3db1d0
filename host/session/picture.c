/*
 * picture.c — a plugin's SVG picture of a state, kept in memory or written
 * to a file atomically (temporary file, then rename) for viewers that watch
 * the file while a game is played.
 */
#include "picture.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "text.h"

/* When `viewer` is the player to move, the decision view (render_choices,
 * ABI 1.1) with the numbers that player types; CAS_ENOTFOUND when there is
 * none to draw. */
static int draw_decision(struct cas__match *m, const cas_state *state, int viewer,
                         const struct cas_writer *out)
{
    int (*choices)(const cas_state *, int, enum cas_render_format, const cas_action *, size_t,
                   const struct cas_writer *) =
        CAS_HAS_FIELD(m->vt, struct cas_game_vtable, render_choices) ? m->vt->render_choices
                                                                     : NULL;
    if (!choices || viewer < 0 || m->vt->current(state) != viewer)
        return CAS_ENOTFOUND;
    struct cas__actions legal = {0};
    int rc = cas__match_legal(m, state, &legal);
    if (rc == CAS_OK)
        rc = choices(state, viewer, CAS_RENDER_SVG, legal.items, legal.count, out);
    cas__actions_free(&legal);
    return rc;
}

int cas__picture_render(struct cas__match *m, const cas_state *state, int viewer,
                        char **svg, size_t *len, char *err, size_t errlen)
{
    struct cas__textbuf g = {0};
    struct cas_writer out = {.struct_size = sizeof out, .ctx = &g, .write = cas__textbuf_write};
    int rc = draw_decision(m, state, viewer, &out);
    if (rc != CAS_OK || g.len == 0) { /* a plugin whose decision view draws no SVG */
        free(g.data);
        g = (struct cas__textbuf){0};
        m->error[0] = '\0';
        rc = m->vt->render(state, viewer, CAS_RENDER_SVG, &out);
    }
    if (rc == CAS_OK && g.len == 0)
        rc = CAS_EINVAL;
    if (rc != CAS_OK) {
        free(g.data);
        if (rc == CAS_EINVAL && !m->error[0])
            snprintf(err, errlen, "%s draws no pictures (its render has no SVG format)",
                     m->plugin->id);
        else
            snprintf(err, errlen, "%s cannot draw this state (%d)%s%s", m->plugin->id, rc,
                     m->error[0] ? ": " : "", m->error);
        return rc;
    }
    *svg = g.data;
    *len = g.len;
    return CAS_OK;
}

int cas__picture_write(struct cas__match *m, const cas_state *state, int viewer,
                       const char *path, char *err, size_t errlen)
{
    char *svg;
    size_t len;
    int rc = cas__picture_render(m, state, viewer, &svg, &len, err, errlen);
    if (rc != CAS_OK)
        return rc;
    size_t tmp_len = strlen(path) + 32;
    char *tmp = malloc(tmp_len);
    if (!tmp) {
        free(svg);
        snprintf(err, errlen, "out of memory");
        return CAS_ENOMEM;
    }
    snprintf(tmp, tmp_len, "%s.tmp-%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "wbe");
    rc = CAS_EIO;
    if (!f) {
        snprintf(err, errlen, "%s: cannot write: %s", tmp, strerror(errno));
        goto free_buffers;
    }
    int written = fwrite(svg, 1, len, f) == len;
    if (fclose(f) != 0 || !written) {
        snprintf(err, errlen, "%s: cannot write: %s", tmp, strerror(errno));
        remove(tmp);
        goto free_buffers;
    }
    if (rename(tmp, path) != 0) {
        snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
        remove(tmp);
        goto free_buffers;
    }
    rc = CAS_OK;
free_buffers:
    free(tmp);
    free(svg);
    return rc;
}
