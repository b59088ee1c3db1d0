/*
 * journal_writer.c — castellan serve's side of the journal's writer thread
 * (saves/writer.c): a table's action goes to the writer instead of being
 * committed on the event loop, and comes back once durable.  Meanwhile the
 * table is busy, as while a bot thinks: frozen, nothing sent to its
 * viewers and nothing played, so a move is acknowledged (the update sent)
 * only once its action is on disk or in the database (docs/server.md,
 * "The journal's writer").  An action followed at once by chance's draw
 * waits for it, and both go as one write (cas__journal_add, _joins).  A
 * take-back, a result (the rules' end, a flag, a claimed leaver) and a bot
 * taking a leaver's seat go the same way, in the same queue, so none is
 * shown before it is durable and none overtakes the action before it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loop_guard.h"
#include "table.h"

/* Most draws of chance journaled with the action before them. */
#define MORE_MAX 8

/* The entries of the actions journaled with e (t->unsaved.more), linked by
 * more; 0, or -1 when memory ran out. */
static int add_more(struct cas__table *t, struct cas__saves_entry *e)
{
    for (size_t i = 0; i < t->unsaved.n_more; i++) {
        const struct cas__unsaved_action *a = &t->unsaved.more[i];
        if (!(e->more = cas__saves_entry_new(t->id, a->ply, a->actor, a->text, a->hash,
                                             a->clock_ms, t)))
            return -1;
        e = e->more;
    }
    return 0;
}

int cas__journal_submit(struct cas__table *t, char *err, size_t errlen)
{
    struct cas__saves_entry *e =
        cas__saves_entry_new(t->id, t->unsaved.ply, t->unsaved.actor, t->unsaved.text,
                             t->unsaved.hash, t->unsaved.clock_ms, t);
    size_t n = t->unsaved.scores ? (size_t)t->nplayers : 0;
    if (e && n && (e->scores = malloc(n * sizeof *e->scores)))
        memcpy(e->scores, t->unsaved.scores, n * sizeof *e->scores);
    if (!e || (n && !e->scores) || add_more(t, e)) {
        cas__saves_entry_free(e);
        snprintf(err, errlen, "out of memory");
        return CAS_ENOMEM;
    }
    e->kind = t->unsaved.kind;
    e->n_scores = n;
    e->forfeit = t->unsaved.forfeit;
    /* An action a job of the pool submits: its answer goes straight back
     * to that job (offload.c), which holds t until then; a take-back, a
     * result or a bot taking a seat goes to the loop (cas__table_written). */
    if (e->kind == CAS__WRITE_APPEND && cas__offload_waits(t))
        e->written = cas__offload_handed_back;
    t->busy = 1;
    t->writing = 1;
    cas__saves_writer_submit(t->lobby->writer, e);
    return CAS_OK;
}

int cas__journal_keep(struct cas__table *t, enum cas__saves_write kind, uint32_t ply,
                      int actor, const char *text, const int64_t *scores, int forfeit,
                      char *err, size_t errlen)
{
    size_t n = scores ? (size_t)t->nplayers : 0;
    t->unsaved.text = strdup(text);
    t->unsaved.scores = n ? malloc(n * sizeof *scores) : NULL;
    if (!t->unsaved.text || (n && !t->unsaved.scores)) {
        cas__journal_forget(t);
        snprintf(err, errlen, "out of memory");
        return CAS_ENOMEM;
    }
    if (n)
        memcpy(t->unsaved.scores, scores, n * sizeof *scores);
    t->unsaved.kind = kind;
    t->unsaved.ply = ply;
    t->unsaved.actor = actor;
    t->unsaved.hash = 0;
    t->unsaved.clock_ms = -1;
    t->unsaved.forfeit = forfeit;
    int rc = cas__journal_submit(t, err, errlen);
    if (rc)
        cas__journal_forget(t);
    return rc;
}

void cas__journal_forget(struct cas__table *t)
{
    free(t->unsaved.text);
    free(t->unsaved.scores);
    for (size_t i = 0; i < t->unsaved.n_more; i++)
        free(t->unsaved.more[i].text);
    free(t->unsaved.more);
    t->unsaved.text = NULL;
    t->unsaved.scores = NULL;
    t->unsaved.more = NULL;
    t->unsaved.n_more = 0;
    t->unsaved.kind = CAS__WRITE_APPEND;
}

int cas__journal_joins(const struct cas__table *t)
{
    return t->lobby->writer && t->unsaved.text && !t->writing && !t->unsaved.why &&
           t->unsaved.kind == CAS__WRITE_APPEND && !t->days_per_move &&
           t->unsaved.n_more < MORE_MAX;
}

int cas__journal_add(struct cas__table *t, uint32_t ply, int actor, const char *text,
                     uint64_t hash, int64_t clock_ms, char *err, size_t errlen)
{
    char *copy = strdup(text);
    struct cas__unsaved_action *more = NULL;
    if (!copy || (t->unsaved.text && !(more = realloc(t->unsaved.more, (t->unsaved.n_more + 1) *
                                                                       sizeof *more)))) {
        free(copy);
        snprintf(err, errlen, "out of memory");
        return CAS_ENOMEM;
    }
    if (more) {
        more[t->unsaved.n_more++] = (struct cas__unsaved_action){
            .ply = ply, .actor = actor, .text = copy, .hash = hash, .clock_ms = clock_ms};
        t->unsaved.more = more;
        return CAS_OK;
    }
    t->unsaved.text = copy;
    t->unsaved.kind = CAS__WRITE_APPEND;
    t->unsaved.ply = ply;
    t->unsaved.actor = actor;
    t->unsaved.hash = hash;
    t->unsaved.clock_ms = clock_ms;
    return CAS_OK;
}

void cas__journal_answered(struct cas__saves_entry *e,
                           void (*apply)(struct cas__table *t, size_t saved, int rc,
                                         const char *why))
{
    struct cas__saves_entry *failed = e;
    size_t saved = 0;
    while (failed && failed->rc == CAS_OK) { /* e, then what was journaled with it */
        saved++;
        failed = failed->more;
    }
    apply(e->owner, saved, failed ? failed->rc : CAS_OK, failed ? failed->err : NULL);
    cas__saves_entry_free(e);
}

static void deliver_answers(struct cas__lobby *l)
{
    if (!l->writer)
        return;
    struct cas__saves_entry *done = cas__saves_writer_done(l->writer, 0);
    while (done) {
        struct cas__saves_entry *next = done->next;
        cas__journal_answered(done, cas__table_written);
        done = next;
    }
}

void cas__journal_deliver(struct cas__lobby *l)
{
    cas__loop_enter();
    deliver_answers(l);
    cas__store_deliver(l);
    cas__loop_leave();
}
