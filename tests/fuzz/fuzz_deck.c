/*
 * fuzz_deck.c — libFuzzer target: a Castles card deck file (the 'deck'
 * option; data/deck.cards) through the castles-cards plugin's parser.
 */
#include <stdlib.h>

#include "castles.h"
#include "fuzz_support.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_folder folder;
    fuzz_folder_write(&folder, "fuzz.cards", data, size);
    struct fuzz_host h;
    fuzz_host_init(&h, folder.dir);
    struct deck *deck = calloc(1, sizeof *deck);
    if (!deck)
        abort();
    int rc = deck_load(&h.host, folder.path, deck);
    if (rc != CAS_OK && h.error[0] == '\0')
        abort(); /* a refusal must explain itself */
    free(deck);
    fuzz_folder_remove(&folder);
    return 0;
}
