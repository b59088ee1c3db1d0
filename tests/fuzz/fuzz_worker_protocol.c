/*
 * fuzz_worker_protocol.c — libFuzzer target: the frames of the plugin
 * worker's protocol (host/worker/wire.h).  The input is a run of frames,
 * each a u32 length and a body as a peer would send them.  Each body goes
 * through the decoder both sides use; a call that decodes is run by the
 * worker's dispatcher against the fixture game (states made by earlier
 * frames of the input stay addressable), and its reply must decode in turn
 * as a reply to that call: whatever a host sends, the worker answers with
 * a well-formed frame or an error, never a crash.
 */
#include <stdlib.h>
#include <string.h>

#include "worker.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
const struct cas_plugin *cas_plugin_entry(void);

/* The fixture game with its default options, made once. */
static struct cas__worker_side *worker(void)
{
    static struct cas__worker_side ws;
    static struct cas_host host;
    static struct cas_option_value options[16];
    if (ws.game)
        return &ws;
    const struct cas_plugin *p = cas_plugin_entry();
    ws = (struct cas__worker_side){.vt = p->game, .nplayers = 3, .fd = -1};
    host = cas__worker_services(&ws, "");
    if (p->n_options > 16)
        abort();
    for (size_t i = 0; i < p->n_options; i++)
        options[i] = (struct cas_option_value){sizeof options[i], p->options[i].name,
                                               p->options[i].default_value};
    struct cas_game_params params = {.struct_size = sizeof params, .nplayers = 3,
                                     .options = options, .n_options = p->n_options};
    if (ws.vt->game_new(&host, &params, &ws.game, NULL) != CAS_OK)
        abort();
    return &ws;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cas__worker_side *ws = worker();
    struct cas__wire_out reply = {0};
    char why[256];
    while (size >= 4) {
        size_t len = cas__wire_get_u32(data);
        data += 4;
        size -= 4;
        if (len > size)
            len = size;
        uint8_t *body = malloc(len ? len : 1); /* exactly len: ASan sees an overread */
        if (!body)
            abort();
        memcpy(body, data, len);
        data += len;
        size -= len;
        struct cas__wire_msg msg, answer;
        if (cas__wire_decode(body, len, &msg, why, sizeof why) == CAS_OK &&
            msg.kind == CAS__WIRE_CALL && msg.op != CAS__OP_QUIT) {
            cas__worker_dispatch(ws, &msg, &reply);
            if (cas__wire_end(&reply) == CAS_OK &&
                (cas__wire_decode(cas__wire_frame(&reply) + 4, reply.b.len - 4, &answer, why, sizeof why) !=
                     CAS_OK ||
                 answer.kind != CAS__WIRE_REPLY || answer.op != msg.op))
                abort(); /* the worker answered with a frame its host refuses */
        }
        free(body);
    }
    cas__wire_out_free(&reply);
    cas__worker_side_free(ws);
    return 0;
}
