/*
 * fuzz_session_ini.c — libFuzzer target: a session file (castellan play
 * --config FILE) through the config parser, as text; what it accepts must
 * free cleanly, what it refuses must say why.
 */
#include <stdlib.h>

#include "fuzz_support.h"
#include "session_desc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    struct cas__session_desc desc;
    char err[1024] = "";
    int rc = cas__session_desc_parse("fuzz.ini", text, &desc, err, sizeof err);
    if (rc != CAS_OK && err[0] == '\0')
        abort(); /* a refusal must explain itself */
    if (rc == CAS_OK)
        cas__session_desc_free(&desc);
    free(text);
    return 0;
}
