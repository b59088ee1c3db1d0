/*
 * fuzz_tileset.c — libFuzzer target: a Carcassonne tile set file (the base
 * game's and every expansion's .tiles in data/) through the carcassonne
 * plugin's parser, then the rotations the engine precomputes from what it
 * accepted.  The file names the attributes the shipped plugins register.
 */
#include <stdlib.h>

#include "carc.h"
#include "fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char attributes[][16] = {"coat", "inn", "cathedral", "wine",
                                      "grain", "cloth", "toll"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char attrs[CARC_MAX_ATTRS][16];
    int nattrs = (int)(sizeof attributes / sizeof attributes[0]);
    memcpy(attrs, attributes, sizeof attributes);
    struct fuzz_folder folder;
    fuzz_folder_write(&folder, "fuzz.tiles", data, size);
    struct fuzz_host h;
    fuzz_host_init(&h, folder.dir);
    struct carc_kind *kinds = NULL;
    int nkinds = 0, start = -1;
    int rc = cas__carc_parse_tileset(&h.host, folder.path, &kinds, &nkinds, attrs, nattrs,
                                     &start);
    if (rc != CAS_OK && h.error[0] == '\0')
        abort(); /* a refusal must explain itself */
    if (rc == CAS_OK)
        cas__carc_prepare_rotations(kinds, nkinds);
    free(kinds);
    fuzz_folder_remove(&folder);
    return 0;
}
