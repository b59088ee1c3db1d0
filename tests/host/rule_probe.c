/*
 * rule_probe.c — a test-only Carcassonne expansion, "rule-probe", that adds
 * nothing to the game but two options, to show that --rule reaches an
 * expansion: `note` (text; its init refuses the value "refuse", as only the
 * plugin can judge) and `farmers` (on/off), a name the game declares too,
 * so the bare name sets the game's and rule-probe.farmers this one's.
 */
#include <string.h>

#include <castellan/carcassonne.h>

static const struct cas_option_spec probe_options[] = {
    {.struct_size = sizeof(struct cas_option_spec), .name = "note", .type = CAS_OPTION_TEXT,
     .default_value = "", .help = "any text but \"refuse\""},
    {.struct_size = sizeof(struct cas_option_spec), .name = "farmers",
     .type = CAS_OPTION_BOOL, .default_value = "off", .help = "a name the game uses too"},
};

/* Nothing to keep but the host that allocated it: the ABI wants a context. */
struct probe_ctx {
    const struct cas_host *host;
};

static int probe_init(const struct cas_carc_api *api, const struct cas_host *host,
                      const cas_carc_game *game, const struct cas_option_value *options,
                      size_t n_options, void **xctx, size_t *bad_option)
{
    (void)api;
    (void)game;
    *xctx = NULL;
    for (size_t i = 0; i < n_options; i++)
        if (strcmp(options[i].name, "note") == 0 && strcmp(options[i].value, "refuse") == 0) {
            cas_host_errorf(host, "rule-probe refuses this note");
            *bad_option = i; /* the host names the option and its value */
            return CAS_EOPTION;
        }
    struct probe_ctx *ctx = host->alloc(host->ctx, sizeof *ctx);
    if (!ctx)
        return CAS_ENOMEM;
    ctx->host = host;
    *xctx = ctx;
    return CAS_OK;
}

static void probe_fini(void *xctx)
{
    struct probe_ctx *ctx = xctx;
    ctx->host->release(ctx->host->ctx, ctx);
}

static const struct cas_carc_expansion probe_expansion = {
    .struct_size = sizeof(struct cas_carc_expansion),
    .abi_major = CAS_CARC_ABI_MAJOR,
    .abi_minor = CAS_CARC_ABI_MINOR,
    .init = probe_init,
    .fini = probe_fini,
};

static const struct cas_plugin probe_plugin = {
    .struct_size = sizeof(struct cas_plugin),
    .abi_major = CAS_ABI_MAJOR,
    .abi_minor = CAS_ABI_MINOR,
    .fingerprint = CAS_BUILD_FINGERPRINT,
    .id = "rule-probe",
    .version = "1.0.0",
    .kind = CAS_KIND_EXPANSION,
    .extends = "carcassonne",
    .options = probe_options,
    .n_options = sizeof probe_options / sizeof probe_options[0],
    .extension = &probe_expansion,
};

CAS_EXPORT const struct cas_plugin *cas_plugin_entry(void)
{
    return &probe_plugin;
}
