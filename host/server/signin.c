/*
 * signin.c — signing registered players in (signin.h).  A sign-in link
 * carries the key in its fragment, which browsers never send: the page
 * hands it to GET /signin in an Authorization header (no proxy logs one),
 * the answer keeps it in an HttpOnly cookie no script can read, and the
 * browser sends that cookie with each WebSocket it opens to this server,
 * never to another site's (SameSite=Strict).  The key appears in no log,
 * page or message: only the player's name goes out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "signin.h"
#include "table.h"

/* A key's characters: digits, '.', lowercase hex. */
static size_t key_span(const char *p)
{
    return strspn(p, "0123456789abcdef.");
}

static int copy_key(const char *p, size_t len, char key[CAS__PLAYER_KEY_MAX])
{
    if (len == 0 || len >= CAS__PLAYER_KEY_MAX)
        return 0;
    memcpy(key, p, len);
    key[len] = '\0';
    return 1;
}

int cas__signin_bearer(const char *header, char key[CAS__PLAYER_KEY_MAX])
{
    static const char scheme[] = "Bearer ";
    if (!header || strncmp(header, scheme, sizeof scheme - 1) != 0)
        return 0;
    const char *p = header + sizeof scheme - 1;
    size_t len = key_span(p);
    return p[len] == '\0' && copy_key(p, len, key);
}

int cas__signin_cookie_key(const char *header, char key[CAS__PLAYER_KEY_MAX])
{
    static const char name[] = CAS__SIGNIN_COOKIE "=";
    for (const char *p = header; p && *p;) {
        p += strspn(p, " ;");
        if (strncmp(p, name, sizeof name - 1) == 0) {
            p += sizeof name - 1;
            size_t len = key_span(p);
            return (p[len] == '\0' || p[len] == ';' || p[len] == ' ') && copy_key(p, len, key);
        }
        p += strcspn(p, ";");
    }
    return 0;
}

int cas__signin_set_cookie(char *buf, size_t cap, const char *key, int secure)
{
    int n = snprintf(buf, cap, CAS__SIGNIN_COOKIE "=%s; Path=/; Max-Age=%d; HttpOnly; "
                     "SameSite=Strict%s", key ? key : "", key ? 366 * 24 * 3600 : 0,
                     secure ? "; Secure" : "");
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* Check key in store s: its player (*who, caller frees) is seen now. */
static int check_key(struct cas__saves *s, const char *key, struct cas__saves_registered *who,
                     const char **why)
{
    int rc = cas__player_key_check(s, key, who, why);
    if (rc == CAS_OK && cas__saves_registered_seen(s, who->id) != CAS_OK) /* only the time is lost */
        fprintf(stderr, "castellan serve: %s\n", cas__saves_errmsg(s));
    return rc;
}

/* The answer of a check (rc): who signs in, or why not. */
static void answer_of(int rc, const struct cas__saves_registered *who, const char *why,
                      struct cas__signin_answer *out)
{
    out->player = 0;
    out->name[0] = '\0';
    if (rc == CAS_EMISMATCH) {
        out->refused = why;
        return;
    }
    if (rc != CAS_OK) {
        out->refused = "the server could not check your sign-in key just now "
                       "(its database did not answer); reload the page to try again";
        return;
    }
    out->refused = NULL;
    out->player = who->id;
    snprintf(out->name, sizeof out->name, "%s", who->name);
}

/* c acts for who from now on, or is told why not (rc). */
static void take_answer(struct cas__conn *c, int rc, const struct cas__saves_registered *who,
                        const char *why)
{
    struct cas__signin_answer a;
    answer_of(rc, who, why, &a);
    c->player = a.player;
    snprintf(c->player_name, sizeof c->player_name, "%s", a.name);
    c->signin_refused = a.refused;
}

void cas__signin_now(struct cas__saves *s, const char *key, struct cas__signin_answer *out)
{
    struct cas__saves_registered who;
    const char *why = NULL;
    int rc = check_key(s, key, &who, &why);
    answer_of(rc, &who, why, out);
    if (rc == CAS_OK)
        cas__saves_registered_free(&who);
}

/* A WebSocket's sign-in, checked on the store's thread; a shell table
 * holds the connection's requests meanwhile (offload.c's inbox). */
struct signin_job {
    struct cas__store_job base;
    struct cas__table *inbox;
    char key[CAS__PLAYER_KEY_MAX];
    struct cas__saves_registered who;
    const char *why;
};

static int run_signin(struct cas__saves *s, struct cas__store_job *base)
{
    struct signin_job *job = (struct signin_job *)base;
    return check_key(s, job->key, &job->who, &job->why);
}

static void signed_in(struct cas__lobby *l, struct cas__store_job *base)
{
    struct signin_job *job = (struct signin_job *)base;
    struct cas__conn *c = job->inbox->hold.asker;
    (void)l;
    if (c)
        take_answer(c, base->rc, &job->who, job->why);
    if (base->rc == CAS_OK)
        cas__saves_registered_free(&job->who);
    cas__offload_drop(job->inbox, 0); /* c's requests, in order, now signed in */
    OPENSSL_cleanse(job->key, sizeof job->key);
    free(job);
}

void cas__signin_conn(struct cas__lobby *l, struct cas__conn *c, const char *key)
{
    struct signin_job *job = calloc(1, sizeof *job);
    if (job && !(job->inbox = cas__table_shell(l))) {
        free(job);
        job = NULL;
    }
    if (!job) {
        take_answer(c, CAS_ENOMEM, NULL, NULL);
        return;
    }
    job->base.run = run_signin;
    job->base.done = signed_in;
    snprintf(job->key, sizeof job->key, "%s", key);
    cas__offload_hold(job->inbox, c);
    cas__store_submit(l, &job->base);
}

void cas__signin_write_hello(const struct cas__conn *c, struct cas__jw *w)
{
    if (c->player) {
        cas__jw_raw(w, ",\"player\":");
        cas__jw_str(w, c->player_name);
        return;
    }
    cas__jw_raw(w, ",\"player\":null");
    if (c->signin_refused) {
        cas__jw_raw(w, ",\"signin_error\":");
        cas__jw_str(w, c->signin_refused);
    }
}

int cas__signin_name_free(struct cas__saves *s, int64_t player, const char *name, char *msg,
                          size_t cap)
{
    struct cas__saves_registered r;
    if (!name || cas__saves_registered_find(s, name, &r) != CAS_OK)
        return CAS_OK;
    int theirs = r.id == player;
    if (!theirs)
        snprintf(msg, cap, "\"%.64s\" is the name of a registered player of this server; "
                 "they sign in with their own link to play as themselves.  Choose another "
                 "name to play as a guest", r.name);
    cas__saves_registered_free(&r);
    return theirs ? CAS_OK : CAS_ECONFLICT;
}

void cas__signin_took_seat(struct cas__saves *s, int64_t player, int64_t game, int seat)
{
    if (!player)
        return;
    if (cas__saves_seat_register(s, game, seat, player) != CAS_OK ||
        cas__saves_registered_seen(s, player) != CAS_OK)
        fprintf(stderr, "castellan serve: %s\n", cas__saves_errmsg(s));
}
