/*
 * session_fields.h — checking and storing the fields of a session
 * description, shared by the session-file reader and the command-line
 * constructor (config-internal).  `where` names the origin in messages:
 * "FILE:LINE" or a flag such as "--players".
 */
#ifndef CAS_CONFIG_SESSION_FIELDS_H
#define CAS_CONFIG_SESSION_FIELDS_H

#include "session_desc.h"

/* Each returns CAS_OK, or a negative code with err filled: "WHERE: problem;
 * fix".  Stored strings are copies owned by desc. */
int cas__desc_set_game(struct cas__session_desc *d, const char *where, const char *value,
                       char *err, size_t errlen);
int cas__desc_set_expansions(struct cas__session_desc *d, const char *where,
                             const char *value, char *err, size_t errlen);
int cas__desc_set_seed(struct cas__session_desc *d, const char *where, const char *value,
                       char *err, size_t errlen);
/* [saves] campaign or --campaign: 1 to 64 characters. */
int cas__desc_set_campaign(struct cas__session_desc *d, const char *where, const char *value,
                           char *err, size_t errlen);
int cas__desc_add_rule(struct cas__session_desc *d, const char *where, const char *key,
                       const char *value, int line, char *err, size_t errlen);
/* A new player with neither name nor agent yet, at line. */
int cas__desc_add_player(struct cas__session_desc *d, int line, char *err, size_t errlen);
int cas__desc_set_player_name(struct cas__player_desc *p, const char *where,
                              const char *value, char *err, size_t errlen);
int cas__desc_set_player_agent(struct cas__player_desc *p, const char *where,
                               const char *value, char *err, size_t errlen);
/* Name every unnamed player "Player N" (N from 1). */
int cas__desc_default_names(struct cas__session_desc *d, char *err, size_t errlen);

#endif
