/*
 * cmd_new_plugin.c — `castellan new-plugin ID [--expansion-of GAME] [DIR]`:
 * a complete, building plugin skeleton written out of tree from the
 * installed templates (host/cli/templates): sources with every entry
 * filled in, the manifest, a CMakeLists.txt using the installed CMake
 * package, cmocka tests that run the conformance check, and a README.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "commands.h"
#include "install_dirs.h"
#include "text.h"

#define TEMPLATE_MAX (256 * 1024)

static const char usage[] =
    "usage: castellan new-plugin ID [--expansion-of GAME] [DIR]\n"
    "\n"
    "Writes a new plugin's sources into DIR (default ./ID, which must not exist\n"
    "or be empty): plugin.c with every entry of the plugin ABI filled in (a\n"
    "small dice game, or with --expansion-of carcassonne an expansion with one\n"
    "scoring rule), its manifest, a CMakeLists.txt that builds it against this\n"
    "installed castellan, cmocka tests that run `castellan check` on it, and a\n"
    "README.  Then:\n"
    "  cmake -B DIR/build -S DIR && cmake --build DIR/build && ctest --test-dir DIR/build\n";

/* The files of a skeleton: template (under the templates folder) and the
 * name it gets; KIND/ is game/ or expansion/. */
static const char *const skeleton_files[][2] = {
    {"common/CMakeLists.txt", "CMakeLists.txt"},
    {"common/README.md", "README.md"},
    {"KIND/plugin.c", "plugin.c"},
    {"KIND/manifest.ini.in", "manifest.ini.in"},
    {"KIND/test_plugin.c", "test_plugin.c"},
};
#define N_SKELETON_FILES (sizeof skeleton_files / sizeof skeleton_files[0])

struct skeleton {
    const char *id, *game, *dir, *templates;
    int expansion;
    char symbol[64];   /* the id as a C identifier */
    char check[160];   /* what `castellan check` is given */
    char play[160];    /* what `castellan play --game` is given */
};

/* The templates folder: installed beside this executable, else where the
 * build installs, else (from the build tree only) the source tree's. */
static char *find_templates(void)
{
    char *beside_exe = cas__beside_executable(CASTELLAN_TEMPLATE_DIR_FROM_BIN);
    if (beside_exe)
        return beside_exe;
    if (access(CASTELLAN_TEMPLATE_INSTALL_DIR "/common", R_OK) == 0)
        return strdup(CASTELLAN_TEMPLATE_INSTALL_DIR);
    if (cas__running_from_build_tree() &&
        access(CASTELLAN_TEMPLATE_SOURCE_DIR "/common", R_OK) == 0)
        return strdup(CASTELLAN_TEMPLATE_SOURCE_DIR);
    return NULL;
}

/* The value of a %%KEY%% marker, or NULL for an unknown key. */
static const char *marker_value(const struct skeleton *k, const char *key, size_t len)
{
    static const char *const keys[] = {"ID", "SYMBOL", "GAME", "KIND", "CHECK", "PLAY"};
    const char *values[] = {k->id, k->symbol, k->game,
                            k->expansion ? "Carcassonne expansion" : "game plugin",
                            k->check, k->play};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (strlen(keys[i]) == len && strncmp(keys[i], key, len) == 0)
            return values[i];
    return NULL;
}

/* text with every %%KEY%% replaced, written to out. */
static int write_substituted(const struct skeleton *k, const char *text, FILE *out)
{
    for (const char *at = text; *at;) {
        const char *open = strstr(at, "%%");
        const char *close = open ? strstr(open + 2, "%%") : NULL;
        const char *value = close ? marker_value(k, open + 2, (size_t)(close - open - 2)) : NULL;
        if (!value) {
            size_t n = open ? (size_t)(open - at) + 2 : strlen(at);
            fwrite(at, 1, n, out);
            at += n;
            continue;
        }
        fwrite(at, 1, (size_t)(open - at), out);
        fputs(value, out);
        at = close + 2;
    }
    return ferror(out) ? CAS_EIO : CAS_OK;
}

/* One skeleton file; 0 or an exit status after saying what went wrong. */
static int write_file(const struct skeleton *k, const char *template_name, const char *name)
{
    char src[4096], dst[4096];
    const char *kind = k->expansion ? "expansion" : "game";
    if (strncmp(template_name, "KIND/", 5) == 0)
        snprintf(src, sizeof src, "%s/%s/%s", k->templates, kind, template_name + 5);
    else
        snprintf(src, sizeof src, "%s/%s", k->templates, template_name);
    snprintf(dst, sizeof dst, "%s/%s", k->dir, name);
    char *text = NULL;
    if (cas__read_file(src, TEMPLATE_MAX, &text) != CAS_OK) {
        fprintf(stderr, "castellan new-plugin: cannot read the template %s (%s); reinstall "
                "castellan\n", src, strerror(errno));
        return 1;
    }
    FILE *out = fopen(dst, "we");
    int rc = out ? write_substituted(k, text, out) : CAS_EIO;
    free(text);
    if (out && fclose(out) != 0)
        rc = CAS_EIO;
    if (rc != CAS_OK) {
        fprintf(stderr, "castellan new-plugin: cannot write %s (%s)\n", dst, strerror(errno));
        return 1;
    }
    return 0;
}

/* DIR must not exist, or be an empty folder; it is created.  0 or an exit
 * status; *created says whether this command made it. */
static int prepare_dir(const char *dir, int *created)
{
    *created = mkdir(dir, 0755) == 0;
    if (*created)
        return 0;
    if (errno != EEXIST) {
        fprintf(stderr, "castellan new-plugin: cannot create %s (%s)\n", dir, strerror(errno));
        return 1;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "castellan new-plugin: %s exists and is not a folder; give another DIR\n",
                dir);
        return 1;
    }
    for (size_t i = 0; i < N_SKELETON_FILES; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, skeleton_files[i][1]);
        if (access(path, F_OK) == 0) {
            fprintf(stderr, "castellan new-plugin: %s already exists; nothing was written "
                    "(give an empty or new DIR)\n", path);
            return 1;
        }
    }
    return 0;
}

/* Remove the files written so far (and DIR if this command made it). */
static void undo(const char *dir, size_t written, int created)
{
    for (size_t i = 0; i < written; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, skeleton_files[i][1]);
        remove(path);
    }
    if (created)
        rmdir(dir);
}

static int check_names(const char *id, const char *game)
{
    if (!cas__is_plugin_id(id)) {
        fprintf(stderr, "castellan new-plugin: \"%s\" is not a plugin id: a lower-case "
                "letter, then letters, digits or '-', at most 63 characters\n", id);
        return 2;
    }
    if (game && strcmp(game, "carcassonne") != 0) {
        fprintf(stderr, "castellan new-plugin: --expansion-of %s: castellan has an expansion "
                "template for carcassonne only; write a game plugin and its own extension "
                "ABI, or use --expansion-of carcassonne\n", game);
        return 2;
    }
    return 0;
}

static int generate(struct skeleton *k)
{
    int created, status = prepare_dir(k->dir, &created);
    if (status)
        return status;
    size_t written = 0;
    for (; written < N_SKELETON_FILES && !status; written++)
        status = write_file(k, skeleton_files[written][0], skeleton_files[written][1]);
    if (status) {
        undo(k->dir, written, created);
        return status;
    }
    printf("Wrote the %s %s in %s: CMakeLists.txt, README.md, plugin.c, manifest.ini.in, "
           "test_plugin.c.\nBuild and test it:\n"
           "  cmake -B %s/build -S %s && cmake --build %s/build && ctest --test-dir %s/build\n",
           k->expansion ? "expansion" : "game", k->id, k->dir, k->dir, k->dir, k->dir, k->dir);
    return 0;
}

int cas__cmd_new_plugin(int argc, char **argv)
{
    const char *game = NULL, *positional[2] = {NULL, NULL};
    size_t n_positional = 0;
    int done = 0;
    const struct cas__flag flags[] = {{"--expansion-of", &game, NULL, NULL}};
    int status = cas__cli_parse("new-plugin", argc, argv, flags, 1, positional, 2,
                                &n_positional, usage, &done);
    if (status || done)
        return status;
    if (n_positional == 0) {
        fprintf(stderr, "castellan new-plugin: give the new plugin's ID\n%s", usage);
        return 2;
    }
    if ((status = check_names(positional[0], game)))
        return status;
    struct skeleton k = {.id = positional[0], .game = game ? game : positional[0],
                         .dir = positional[1] ? positional[1] : positional[0],
                         .expansion = game != NULL};
    snprintf(k.symbol, sizeof k.symbol, "%s", k.id);
    for (char *c = k.symbol; *c; c++)
        if (*c == '-')
            *c = '_';
    snprintf(k.check, sizeof k.check, game ? "%s --expansions %s" : "%s%s", k.game,
             game ? k.id : "");
    snprintf(k.play, sizeof k.play, "%s", k.check);
    char *templates = find_templates();
    if (!templates) {
        fprintf(stderr, "castellan new-plugin: no templates in %s; reinstall castellan\n",
                CASTELLAN_TEMPLATE_INSTALL_DIR);
        return 1;
    }
    k.templates = templates;
    status = generate(&k);
    free(templates);
    return status;
}
