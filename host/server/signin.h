/*
 * signin.h — registered players signing in to castellan serve
 * (docs/players.md, "Signing in"): the sign-in link's key goes from the
 * link's fragment to GET /signin in an Authorization header, comes back as
 * an HttpOnly, SameSite=Strict cookie, and each WebSocket opened with
 * that cookie acts for the player.
 */
#ifndef CAS_HOST_SIGNIN_H
#define CAS_HOST_SIGNIN_H

#include <stddef.h>

#include "player_key.h"
#include "server.h"

/* The cookie's name. */
#define CAS__SIGNIN_COOKIE "castellan_player"

/* The key in "Authorization: Bearer KEY" (header may be NULL) into
 * key[CAS__PLAYER_KEY_MAX]: 1, or 0 when there is none of that shape. */
int cas__signin_bearer(const char *header, char key[CAS__PLAYER_KEY_MAX]);

/* (loop) Sign WebSocket c in with key (its cookie's): checked on the
 * store's thread while c's requests wait in order; then c acts for the
 * player (c->player, c->player_name), the player seen now; or
 * c->signin_refused says why not (a store failure: to try again). */
void cas__signin_conn(struct cas__lobby *l, struct cas__conn *c, const char *key);
/* What checking a key said: the player it signs in (0: none) and their
 * name, or why not (a static text). */
struct cas__signin_answer {
    int64_t player;
    char name[CAS__SAVES_NAME_MAX * 4 + 1];
    const char *refused;
};
/* Check key at once in store s (GET /signin's answer, on the store's
 * thread) into *out. */
void cas__signin_now(struct cas__saves *s, const char *key, struct cas__signin_answer *out);

/* The value of cookie castellan_player in a Cookie header (NULL: none)
 * into key[CAS__PLAYER_KEY_MAX]: 1, or 0 when it has none that fits. */
int cas__signin_cookie_key(const char *header, char key[CAS__PLAYER_KEY_MAX]);

/* The Set-Cookie value keeping key for a year (HttpOnly, SameSite=Strict,
 * Path=/, Secure when secure), or with key NULL the one that forgets it,
 * into buf[cap].  0, or -1 when cap is too small. */
int cas__signin_set_cookie(char *buf, size_t cap, const char *key, int secure);

struct cas__jw;

/* The hello reply's part about who c is: ,"player":"NAME", or
 * ,"player":null and, when a key was refused, ,"signin_error":"WHY". */
void cas__signin_write_hello(const struct cas__conn *c, struct cas__jw *w);

/* (the store's thread) Whether player (0: a guest) may give a seat the
 * name `name` (NULL: none given): CAS_OK, or CAS_ECONFLICT with the reason
 * in msg when it is a registered player's (in any case) other than their
 * own.  A store failure lets it through.  A claim's name is a signed-in
 * player's own, else the one asked, else the seat's: a guest may not take
 * a registered player's name either. */
int cas__signin_name_free(struct cas__saves *s, int64_t player, const char *name, char *msg,
                          size_t cap);

/* (the store's thread) player (0: a guest: nothing) took seat `seat` of
 * game `game`: the journal records which player (ratings and the history
 * find them by it), and when they were seen.  A store failure leaves the
 * seat named only. */
void cas__signin_took_seat(struct cas__saves *s, int64_t player, int64_t game, int seat);

#endif
