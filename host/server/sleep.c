/*
 * sleep.c — a hosted game that no connection follows costs little memory.
 * At the end of a job (offload.c), a table that nobody follows and that
 * waits for nothing but a person's decision (no bot to move, nothing on
 * the journal's writer or kept for the store) goes to sleep: its state,
 * and the states kept for undo, are held as the plugin's serialized bytes
 * (a few hundred bytes to a few KB, against the whole game's capacity a
 * live Carcassonne state holds), and its views let go of their pictures
 * and messages.  The next job of the table wakes it first, on the pool as
 * every plugin call: the states come back from the bytes (their hash
 * checked against the one they had), and a page that comes back gets the
 * full state (docs/server.md, "Resuming").  The loop never touches a
 * state, so it never sees a sleeping table differ from a waking one.
 * Worker-isolated games keep their states in their workers: they do not
 * sleep.
 */
#include <stdlib.h>
#include <string.h>

#include "table.h"

/* state's serialized bytes into *out (owned).  CAS_ENOMEM, or the
 * plugin's error. */
static int serialize(const struct cas__match *m, const cas_state *state,
                     struct cas__sleep_bytes *out)
{
    size_t cap = 512, len = 0;
    for (;;) {
        uint8_t *data = malloc(cap);
        if (!data)
            return CAS_ENOMEM;
        int rc = m->vt->serialize(state, CAS_SERIAL_FULL, data, cap, &len);
        if (rc == CAS_OK && len <= cap) {
            uint8_t *fit = realloc(data, len ? len : 1);
            out->data = fit ? fit : data;
            out->len = len;
            return CAS_OK;
        }
        free(data);
        if (rc != CAS_ENOSPC || len <= cap)
            return rc == CAS_OK ? CAS_ECORRUPT : rc;
        cap = len;
    }
}

static void free_sleep(struct cas__sleep *z)
{
    for (size_t i = 0; z && i < z->n; i++)
        free(z->bytes[i].data);
    free(z);
}

/* Whether t waits for nothing but a decision of someone who does not
 * follow it: its views' counts are settled while a job holds it, so the
 * job may read them. */
static int idle(const struct cas__table *t)
{
    const struct cas__match *m = &t->r.match;
    if (t->opening || t->over || t->failure[0] || t->busy || t->writing ||
        cas__table_unshown(t) || t->owes_update || t->owes_full || m->isolated ||
        !t->r.session.state || !m->vt->serialize || !m->vt->deserialize)
        return 0;
    for (int i = 0; i <= t->nplayers; i++)
        if (t->views[i].conns)
            return 0;
    return 1;
}

void cas__table_sleep(struct cas__table *t)
{
    if (t->sleep || !idle(t))
        return;
    struct cas__session *s = &t->r.session;
    const struct cas__match *m = &t->r.match;
    size_t n = 1 + s->undo.count;
    struct cas__sleep *z = calloc(1, sizeof *z + n * sizeof z->bytes[0]);
    if (!z)
        return; /* it stays awake: that costs memory, not correctness */
    for (z->n = 0; z->n < n; z->n++) {
        const cas_state *state = z->n ? s->undo.steps[z->n - 1].before : s->state;
        if (serialize(m, state, &z->bytes[z->n]) != CAS_OK) {
            free_sleep(z);
            return;
        }
    }
    z->hash = m->vt->hash ? m->vt->hash(s->state) : 0;
    m->vt->state_free(s->state);
    s->state = NULL;
    for (size_t i = 0; i < s->undo.count; i++) {
        m->vt->state_free(s->undo.steps[i].before);
        s->undo.steps[i].before = NULL;
    }
    cas__actions_free(&s->scratch);
    cas__actions_free(&t->bot_legal);
    for (int i = 0; i <= t->nplayers; i++)
        cas__view_release(&t->views[i]);
    t->sleep = z;
}

int cas__table_wake(struct cas__table *t)
{
    struct cas__sleep *z = t->sleep;
    if (!z)
        return CAS_OK;
    if (t->failure[0]) /* it could not wake before (a table that stopped never sleeps) */
        return CAS_ECORRUPT;
    struct cas__session *s = &t->r.session;
    const struct cas__match *m = &t->r.match;
    cas_state **states = calloc(z->n, sizeof *states);
    size_t got = 0;
    int rc = states ? CAS_OK : CAS_ENOMEM;
    for (; got < z->n && rc == CAS_OK; got++)
        if ((rc = m->vt->deserialize(m->game, z->bytes[got].data, z->bytes[got].len,
                                     &states[got])) != CAS_OK)
            break;
    if (rc == CAS_OK && m->vt->hash && m->vt->hash(states[0]) != z->hash)
        rc = CAS_EMISMATCH;
    if (rc != CAS_OK) { /* it sleeps on, stopped: nothing may read a state */
        while (states && got-- > 0)
            m->vt->state_free(states[got]);
        free(states);
        cas__table_fail(t, rc == CAS_ENOMEM ? "out of memory to wake the game"
                                            : "the game's state did not come back whole "
                                              "from its serialized bytes (a plugin defect)");
        return rc;
    }
    s->state = states[0];
    for (size_t i = 0; i < s->undo.count; i++)
        s->undo.steps[i].before = states[i + 1];
    free(states);
    t->sleep = NULL;
    free_sleep(z);
    return CAS_OK;
}

int cas__table_asleep(const struct cas__table *t)
{
    return t->sleep != NULL;
}

void cas__table_tell_stopped(struct cas__table *t)
{
    struct cas__srv_msg *msg = NULL;
    if (!t->sleep || !t->failure[0])
        return;
    for (struct cas__conn *c = t->viewers; c; c = c->next_viewer) {
        if (!c->fresh)
            continue;
        if (!msg) {
            struct cas__jw w;
            cas__jw_init(&w);
            cas__jw_printf(&w, "{\"type\":\"stopped\",\"game\":\"%lld\",\"failure\":",
                           (long long)t->id);
            cas__jw_str(&w, t->failure);
            cas__jw_raw(&w, "}");
            if (!(msg = cas__srv_msg_take(&w)))
                return; /* they stay owed it: the next job tells them */
        }
        c->send(c, msg);
        c->fresh = 0;
    }
    cas__srv_msg_unref(msg);
}

void cas__table_sleep_free(struct cas__table *t)
{
    if (!t->sleep)
        return;
    t->r.session.undo.count = 0; /* their states are the bytes let go here */
    cas__session_free(&t->r.session); /* the rest of it: revive closes a session with a state */
    free_sleep(t->sleep);
    t->sleep = NULL;
}
