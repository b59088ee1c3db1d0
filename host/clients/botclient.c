/*
 * botclient.c — the decisions of a scripted browser: read a state message
 * and answer with an act for one of the legal actions it lists.  Shared by
 * the server's end-to-end and load tests and by `castellan bench --only
 * serve`, so they all play through the protocol exactly as the page does.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "server.h"
#include "wsclient.h"

static const struct cas_json *member(const struct cas_json *obj, const char *key)
{
    for (size_t i = 0; obj && obj->type == CAS_JSON_OBJECT && i < obj->n; i++)
        if (strcmp(obj->items[i].key, key) == 0)
            return &obj->items[i];
    return NULL;
}

int cas__botclient_read(const char *text, size_t len, struct cas__botclient_view *out)
{
    struct cas_json *root;
    size_t line, offset;
    memset(out, 0, sizeof *out);
    out->you = out->actor = -1;
    if (cas__json_parse(text, len, &root, &line, &offset) != CAS_OK)
        return CAS_EPARSE;
    const struct cas_json *type = member(root, "type"), *v;
    snprintf(out->type, sizeof out->type, "%s", type && type->text ? type->text : "");
    out->state = strcmp(out->type, "state") == 0 || strcmp(out->type, "update") == 0;
    if ((v = member(root, "game")) && v->text)
        out->game = strtoll(v->text, NULL, 10);
    if ((v = member(root, "ply")) && v->type == CAS_JSON_NUMBER)
        out->ply = strtoll(v->text, NULL, 10);
    if ((v = member(root, "you")) && v->type == CAS_JSON_NUMBER)
        out->you = atoi(v->text);
    if ((v = member(root, "actor")) && v->type == CAS_JSON_NUMBER)
        out->actor = atoi(v->text);
    out->over = (v = member(root, "over")) && v->type == CAS_JSON_TRUE;
    out->can_undo = (v = member(root, "can_undo")) && v->type == CAS_JSON_TRUE;
    if ((v = member(root, "actions")) && v->type == CAS_JSON_ARRAY)
        out->n_actions = v->n;
    if ((v = member(root, "code")) && v->text)
        snprintf(out->code, sizeof out->code, "%s", v->text);
    out->root = root;
    return CAS_OK;
}

void cas__botclient_view_free(struct cas__botclient_view *v)
{
    cas__json_free(v->root);
    v->root = NULL;
}

const char *cas__botclient_action(const struct cas__botclient_view *v, size_t i)
{
    const struct cas_json *a = member(v->root, "actions");
    return a && i < a->n && a->items[i].type == CAS_JSON_STRING ? a->items[i].text : NULL;
}

int cas__botclient_act(const struct cas__botclient_view *v, uint64_t pick, char *out, size_t cap)
{
    if (!v->state || v->over || v->you < 0 || v->actor != v->you ||
        !v->n_actions)
        return 0;
    const char *action = cas__botclient_action(v, (size_t)(pick % v->n_actions));
    struct cas__jw w;
    cas__jw_init(&w);
    cas__jw_printf(&w, "{\"type\":\"act\",\"game\":\"%lld\",\"ply\":%lld,\"action\":",
                   (long long)v->game, (long long)v->ply);
    cas__jw_str(&w, action);
    cas__jw_raw(&w, "}");
    int ok = !w.b.failed && cas__jw_len(&w) < cap;
    if (ok)
        memcpy(out, cas__jw_text(&w), cas__jw_len(&w) + 1);
    cas__jw_free(&w);
    return ok;
}
