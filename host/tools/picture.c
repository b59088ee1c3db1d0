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

int cas__picture_render(struct cas__match *m, const cas_state *state, int viewer,
                        char **svg, size_t *len, char *err, size_t errlen)
{
    struct cas__textbuf g = {0};
    struct cas_writer out = {.struct_size = sizeof out, .ctx = &g, .write = cas__textbuf_write};
    m->error[0] = '\0';
    int rc = m->vt->render(state, viewer, CAS_RENDER_SVG, &out);
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
    FILE *f = fopen(tmp, "wb");
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
