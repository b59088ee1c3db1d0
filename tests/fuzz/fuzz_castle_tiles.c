/*
 * fuzz_castle_tiles.c — libFuzzer target: a tile file of The Castle
 * (plugins/the-castle/data/castle.tiles) through the-castle plugin's
 * parser; a set it accepts is then laid against the shipped board, as a
 * game of The Castle does.
 */
#include <stdlib.h>

#include "castle.h"
#include "fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_folder folder;
    fuzz_folder_write(&folder, "fuzz.tiles", data, size);
    struct fuzz_host h;
    fuzz_host_init(&h, folder.dir);
    struct tileset *tiles = calloc(1, sizeof *tiles);
    struct board *board = calloc(1, sizeof *board);
    if (!tiles || !board)
        abort();
    int rc = tiles_load(&h.host, folder.path, tiles);
    if (rc == CAS_OK)
        rc = board_load(&h.host, CASTELLAN_SOURCE_DIR "/plugins/the-castle/data/castle.board",
                        tiles, board);
    if (rc != CAS_OK && h.error[0] == '\0')
        abort(); /* a refusal must explain itself */
    free(board);
    free(tiles);
    fuzz_folder_remove(&folder);
    return 0;
}
