/*
 * journal_writer.c — castellan serve's side of the journal's writer thread
 * (saves/writer.c): a table's action goes to the writer instead of being
 * committed on the event loop, and comes back once durable.  Meanwhile the
 * table is busy, as while a bot thinks: frozen, nothing sent to its
 * viewers and nothing played, so a move is acknowledged (the update sent)
 * only once its action is on disk or in the database (docs/server.md,
 * "The journal's writer").
 */
#include <stdio.h>

#include "table.h"

int cas__journal_submit(struct cas__table *t, char *err, size_t errlen)
{
    struct cas__saves_entry *e =
        cas__saves_entry_new(t->id, t->unsaved.ply, t->unsaved.actor, t->unsaved.text,
                             t->unsaved.hash, t->unsaved.clock_ms, t);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        return CAS_ENOMEM;
    }
    t->busy = 1;
    t->writing = 1;
    cas__saves_writer_submit(t->lobby->writer, e);
    return CAS_OK;
}

void cas__journal_deliver(struct cas__lobby *l)
{
    if (!l->writer)
        return;
    struct cas__saves_entry *done = cas__saves_writer_done(l->writer, 0);
    while (done) {
        struct cas__saves_entry *next = done->next;
        cas__table_written(done->owner, done->rc, done->err);
        cas__saves_entry_free(done);
        done = next;
    }
}
