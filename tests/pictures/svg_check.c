/*
 * svg_check.c — the shared checks of plugin SVG pictures (svg_check.h).
 */
#include "svg_check.h"

#include "marks.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

#define SVG_NS "http://www.w3.org/2000/svg"
#define XLINK_NS "http://www.w3.org/1999/xlink"

struct buffer {
    char *data;
    size_t len, cap;
};

static int buffer_write(void *ctx, const char *data, size_t len)
{
    struct buffer *b = ctx;
    if (b->len + len > b->cap) {
        b->cap = (b->len + len) * 2;
        b->data = realloc(b->data, b->cap);
        assert_non_null(b->data);
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
    return CAS_OK;
}

static struct buffer draw(struct cas_test_game *g, const cas_state *state, int viewer)
{
    struct buffer b = {0};
    struct cas_writer out = {.struct_size = sizeof out, .ctx = &b, .write = buffer_write};
    int rc = g->vt->render(state, viewer, CAS_RENDER_SVG, &out);
    if (rc != CAS_OK)
        fail_msg("SVG render for viewer %d gave %d: %s", viewer, rc, g->error);
    assert_true(b.len > 0);
    return b;
}

/* Every reference stays inside the document: href only to "#id", no
 * image, script or foreign object, no url() of anything but "#id". */
static void check_self_contained(xmlNodePtr node, const char *text)
{
    for (; node; node = node->next) {
        if (node->type != XML_ELEMENT_NODE)
            continue;
        const char *name = (const char *)node->name;
        if (strcmp(name, "image") == 0 || strcmp(name, "script") == 0 ||
            strcmp(name, "foreignObject") == 0)
            fail_msg("a picture may not hold <%s>:\n%s", name, text);
        if (!node->ns || strcmp((const char *)node->ns->href, SVG_NS) != 0)
            fail_msg("<%s> is not in the SVG namespace", name);
        for (xmlAttrPtr a = node->properties; a; a = a->next)
            if (strcmp((const char *)a->name, "href") == 0) {
                xmlChar *v = xmlNodeGetContent((xmlNodePtr)a);
                if (v[0] != '#')
                    fail_msg("<%s> refers outside the picture: %s", name, (char *)v);
                if (!a->ns || strcmp((const char *)a->ns->href, XLINK_NS) != 0)
                    fail_msg("SVG 1.1 needs xlink:href, <%s> has a plain href", name);
                xmlFree(v);
            }
        check_self_contained(node->children, text);
    }
    if (strstr(text, "url(") && !strstr(text, "url(#"))
        fail_msg("a url() in the picture refers outside it");
}

xmlDocPtr svg_check_render(struct cas_test_game *g, int viewer)
{
    struct buffer b = draw(g, g->state, viewer);
    buffer_write(&b, "", 1);
    b.len--;
    xmlDocPtr doc = xmlReadMemory(b.data, (int)b.len, "picture.svg", "UTF-8",
                                  XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc) {
        const xmlError *e = xmlGetLastError();
        fail_msg("the SVG for viewer %d is not well-formed XML (line %d: %s):\n%s", viewer,
                 e ? e->line : 0, e ? e->message : "?", b.data);
    }
    xmlNodePtr root = xmlDocGetRootElement(doc);
    assert_string_equal((const char *)root->name, "svg");
    xmlChar *version = xmlGetProp(root, (const xmlChar *)"version");
    assert_non_null(version);
    assert_string_equal((const char *)version, "1.1");
    xmlFree(version);
    assert_true(xmlHasProp(root, (const xmlChar *)"width") &&
                xmlHasProp(root, (const xmlChar *)"height"));
    check_self_contained(root, b.data);
    /* deterministic: again, and from a copy of the state, the same bytes */
    struct buffer again = draw(g, g->state, viewer);
    cas_state *copy;
    assert_int_equal(g->vt->state_clone(g->state, &copy), CAS_OK);
    struct buffer cloned = draw(g, copy, viewer);
    g->vt->state_free(copy);
    assert_true(again.len == b.len && memcmp(again.data, b.data, b.len) == 0);
    assert_true(cloned.len == b.len && memcmp(cloned.data, b.data, b.len) == 0);
    free(again.data);
    free(cloned.data);
    free(b.data);
    return doc;
}

static xmlXPathObjectPtr evaluate(xmlDocPtr doc, const char *expr)
{
    xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
    assert_non_null(ctx);
    xmlXPathRegisterNs(ctx, (const xmlChar *)"s", (const xmlChar *)SVG_NS);
    xmlXPathObjectPtr obj = xmlXPathEvalExpression((const xmlChar *)expr, ctx);
    xmlXPathFreeContext(ctx);
    if (!obj)
        fail_msg("bad XPath %s", expr);
    return obj;
}

int svg_count(xmlDocPtr doc, const char *path)
{
    xmlXPathObjectPtr obj = evaluate(doc, path);
    int n = obj->nodesetval ? obj->nodesetval->nodeNr : 0;
    xmlXPathFreeObject(obj);
    return n;
}

char *svg_string(xmlDocPtr doc, const char *expr)
{
    char wrapped[512];
    snprintf(wrapped, sizeof wrapped, "string(%s)", expr);
    xmlXPathObjectPtr obj = evaluate(doc, wrapped);
    char *text = (char *)xmlStrdup(obj->stringval);
    xmlXPathFreeObject(obj);
    return text;
}

static void check_all_viewers(struct cas_test_game *g,
                              void (*check)(struct cas_test_game *g, int viewer,
                                            xmlDocPtr doc))
{
    for (int viewer = CAS_VIEWER_OMNISCIENT; viewer < g->nplayers; viewer++) {
        xmlDocPtr doc = svg_check_render(g, viewer);
        check(g, viewer, doc);
        xmlFreeDoc(doc);
    }
}

void svg_check_walk(struct cas_test_game *g, uint64_t seed, int steps, int every,
                    void (*check)(struct cas_test_game *g, int viewer, xmlDocPtr doc))
{
    cas_action legal[4096];
    uint64_t x = seed * 2654435761u + 1;
    check_all_viewers(g, check);
    for (int i = 1; i <= steps && g->vt->current(g->state) != CAS_ACTOR_TERMINAL; i++) {
        size_t n;
        assert_int_equal(g->vt->legal_actions(g->state, legal, 4096, &n), CAS_OK);
        assert_true(n > 0);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        assert_int_equal(g->vt->apply(g->state, legal[x % n], NULL), CAS_OK);
        if (i % every == 0 || g->vt->current(g->state) == CAS_ACTOR_TERMINAL)
            check_all_viewers(g, check);
    }
}

/* ------------------------------------------------------ click to play */

void svg_check_marks(struct cas_test_game *g, const cas_action *legal, size_t n,
                     int (*is_button)(const char *text), struct marks_tally *tally)
{
    int player = g->vt->current(g->state);
    struct buffer b = {0};
    struct cas_writer out = {.struct_size = sizeof out, .ctx = &b, .write = buffer_write};
    int rc = g->vt->render_choices(g->state, player, CAS_RENDER_SVG_ACTIONS, legal, n, &out);
    char text[256];
    if (rc == CAS_EINVAL) {
        for (size_t i = 0; i < n; i++) {
            assert_true(g->vt->action_text(g->state, legal[i], text, sizeof text) >= 0);
            if (!is_button(text))
                fail_msg("nothing is marked, yet \"%s\" is no button", text);
        }
        tally->buttons += (long)n;
        tally->actions += (long)n;
        free(b.data);
        return;
    }
    if (rc != CAS_OK)
        fail_msg("the marked picture gave %d: %s", rc, g->error);
    buffer_write(&b, "", 1);
    b.len--;
    if (getenv("CAS_MARKS_DUMP")) { /* =DIR: every marked picture, to look at */
        static int seq;
        char path[512], first[64];
        g->vt->action_text(g->state, legal[0], first, sizeof first);
        for (char *c = first; *c; c++)
            if (*c == ' ' || *c == ',' || *c == '/')
                *c = '_';
        snprintf(path, sizeof path, "%s/%04d-%s.svg", getenv("CAS_MARKS_DUMP"), seq++, first);
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(b.data, 1, b.len, f);
            fclose(f);
        }
    }
    xmlDocPtr doc = xmlReadMemory(b.data, (int)b.len, "marks.svg", "UTF-8",
                                  XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    if (!doc)
        fail_msg("the marked picture is not well-formed XML:\n%s", b.data);
    check_self_contained(xmlDocGetRootElement(doc), b.data);
    xmlFreeDoc(doc);
    struct buffer again = {0};
    out.ctx = &again;
    assert_int_equal(g->vt->render_choices(g->state, player, CAS_RENDER_SVG_ACTIONS, legal, n,
                                           &out), CAS_OK);
    assert_true(again.len == b.len && memcmp(again.data, b.data, b.len) == 0);
    free(again.data);
    struct cas__marks_report r;
    char why[200];
    unsigned char *each = malloc(n);
    assert_non_null(each);
    if (cas__marks_verify(b.data, b.len, n, &r, each, why, sizeof why) != CAS_OK)
        fail_msg("bad marks: %s\n%s", why, b.data);
    assert_true(r.elements > 0);
    for (size_t i = 0; i < n; i++) {
        assert_true(g->vt->action_text(g->state, legal[i], text, sizeof text) >= 0);
        if (each[i] == CAS__MARK_UNREACHABLE)
            fail_msg("\"%s\" is marked but no clicks narrow to it alone", text);
        if (each[i] == CAS__MARK_NONE && !is_button(text))
            fail_msg("\"%s\" is neither marked nor a button by design", text);
        tally->buttons += each[i] == CAS__MARK_NONE;
    }
    free(each);
    tally->reachable += (long)r.reachable;
    tally->decisions++;
    tally->actions += (long)n;
    free(b.data);
}

static xmlDocPtr choices_doc(struct cas_test_game *g, enum cas_render_format format,
                             const cas_action *legal, size_t n)
{
    struct buffer b = {0};
    struct cas_writer out = {.struct_size = sizeof out, .ctx = &b, .write = buffer_write};
    int rc = g->vt->render_choices(g->state, g->vt->current(g->state), format, legal, n, &out);
    if (rc != CAS_OK)
        fail_msg("the marked picture gave %d: %s", rc, g->error);
    xmlDocPtr doc = xmlReadMemory(b.data, (int)b.len, "marks.svg", "UTF-8", XML_PARSE_NONET);
    assert_non_null(doc);
    free(b.data);
    return doc;
}

xmlDocPtr svg_marks_doc(struct cas_test_game *g, const cas_action *legal, size_t n)
{
    return choices_doc(g, CAS_RENDER_SVG_ACTIONS, legal, n);
}

xmlDocPtr svg_choices_doc(struct cas_test_game *g, const cas_action *legal, size_t n)
{
    return choices_doc(g, CAS_RENDER_SVG, legal, n);
}

void svg_marks_walk(struct cas_test_game *g, uint64_t seed, int steps,
                    int (*is_button)(const char *text), struct marks_tally *tally)
{
    static cas_action legal[8192];
    uint64_t x = seed * 2654435761u + 1;
    for (int i = 0; i < steps && g->vt->current(g->state) != CAS_ACTOR_TERMINAL; i++) {
        size_t n;
        assert_int_equal(g->vt->legal_actions(g->state, legal, 8192, &n), CAS_OK);
        assert_true(n > 0);
        if (g->vt->current(g->state) >= 0)
            svg_check_marks(g, legal, n, is_button, tally);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        assert_int_equal(g->vt->apply(g->state, legal[x % n], NULL), CAS_OK);
    }
}
