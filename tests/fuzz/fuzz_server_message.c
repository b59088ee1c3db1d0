/*
 * fuzz_server_message.c — libFuzzer target: one WebSocket message a client
 * of castellan serve may send, through the protocol's decoder
 * (host/server/protocol.c over host/util/json.c).  A message it accepts
 * must free cleanly; one it refuses must name an error code of the
 * protocol and explain itself; the error reply built from it must be one
 * JSON object (so a hostile id cannot break out of its quotes).
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "server.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cas__req req;
    const char *code = NULL;
    char msg[512] = "";
    if (cas__req_decode((const char *)data, size, &req, &code, msg, sizeof msg) == CAS_OK) {
        cas__req_free(&req);
        return 0;
    }
    if (!code || !code[0] || !msg[0])
        abort();
    struct cas__jw w;
    cas__jw_init(&w);
    cas__req_error(&w, req.id, code, msg);
    if (!w.b.failed && cas__json_object_error(cas__jw_text(&w), cas__jw_len(&w)) != 0)
        abort();
    cas__jw_free(&w);
    return 0;
}
