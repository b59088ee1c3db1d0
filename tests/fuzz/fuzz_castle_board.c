/*
 * fuzz_castle_board.c — libFuzzer target: a board file of The Castle
 * (plugins/the-castle/data/castle.board) through the-castle plugin's
 * parser, against the shipped tile set, read once before the first input.
 */
#include <stdlib.h>

#include "castle.h"
#include "fuzz_support.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct tileset shipped;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    struct fuzz_host h;
    fuzz_host_init(&h, CASTELLAN_SOURCE_DIR "/plugins/the-castle/data");
    if (tiles_load(&h.host, CASTELLAN_SOURCE_DIR "/plugins/the-castle/data/castle.tiles",
                   &shipped) != CAS_OK)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_folder folder;
    fuzz_folder_write(&folder, "fuzz.board", data, size);
    struct fuzz_host h;
    fuzz_host_init(&h, folder.dir);
    struct board *board = calloc(1, sizeof *board);
    if (!board)
        abort();
    int rc = board_load(&h.host, folder.path, &shipped, board);
    if (rc != CAS_OK && h.error[0] == '\0')
        abort(); /* a refusal must explain itself */
    free(board);
    fuzz_folder_remove(&folder);
    return 0;
}
