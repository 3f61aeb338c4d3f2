// src/core/scenario_dir.c: the shipped scenarios: where they are (the
// installed ones beside the library or the program, else the source tree's,
// $BOIDS_SCENARIOS first), a scenario by name, and their list.
#define _GNU_SOURCE // realpath, dladdr
#include <dirent.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <ini.h>

#include "boids/scenario.h"

#ifndef BOIDS_SCENARIO_DIR
#define BOIDS_SCENARIO_DIR "scenarios"
#endif
// The installed scenarios relative to the folder of the installed library
// (libdir) and of a program linked with it statically (bindir).
#ifndef BOIDS_SCENARIO_FROM_LIB
#define BOIDS_SCENARIO_FROM_LIB "../share/boids/scenarios"
#endif
#ifndef BOIDS_SCENARIO_FROM_BIN
#define BOIDS_SCENARIO_FROM_BIN "../share/boids/scenarios"
#endif

// ---- the shipped directory ---------------------------------------------------------------

static bool is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

// The installed scenarios beside the file this code was loaded from, found
// wherever the prefix was moved: FOLDER/BOIDS_SCENARIO_FROM_LIB or _FROM_BIN,
// or FOLDER/scenarios (a bundle beside the library: the Python package's), where FOLDER is
// that of libboids.so (dladdr) or of the program (/proc/self/exe: a program
// with libboids.a in it, which dladdr names only by its argv[0]). NULL if
// none exists (the build tree).
static const char *installed_dir(void) {
    static char dir[4096]; // its address names the file too (dladdr)
    Dl_info info;
    const char *objects[] = {dladdr(dir, &info) && info.dli_fname ? info.dli_fname : NULL, "/proc/self/exe"};
    const char *rel[] = {BOIDS_SCENARIO_FROM_LIB, BOIDS_SCENARIO_FROM_BIN, "scenarios"};
    for (int o = 0; o < 2; o++) {
        char folder[4096];
        if (!objects[o] || !strchr(objects[o], '/') || !realpath(objects[o], folder))
            continue;
        *strrchr(folder, '/') = '\0';
        for (int i = 0; i < (o == 0 ? 3 : 2); i++) { // a bundle beside the library only
            int n = snprintf(dir, sizeof dir, "%s/%s", folder, rel[i]);
            if (n > 0 && (size_t)n < sizeof dir && is_dir(dir))
                return dir;
        }
    }
    return NULL;
}

const char *boids_scenario_dir(void) {
    const char *env = getenv("BOIDS_SCENARIOS");
    if (env && env[0] && is_dir(env))
        return env;
    const char *installed = installed_dir();
    if (installed)
        return installed;
    if (is_dir(BOIDS_SCENARIO_DIR))
        return BOIDS_SCENARIO_DIR;
    return NULL;
}

bool boids_scenario_find(const char *arg, char *out, size_t out_size) {
    if (!arg || !out || !out_size)
        return false;
    size_t n = strlen(arg);
    if (strchr(arg, '/') || (n > 4 && strcmp(arg + n - 4, ".ini") == 0)) {
        snprintf(out, out_size, "%s", arg);
        return true;
    }
    const char *dir = boids_scenario_dir();
    if (!dir)
        return false;
    snprintf(out, out_size, "%s/%s.ini", dir, arg);
    return true;
}

static int cmp_names(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int boids_scenario_list(FILE *f) {
    if (!f)
        return -1;
    const char *dir = boids_scenario_dir();
    DIR *d = dir ? opendir(dir) : NULL;
    if (!d)
        return -1;
    char *names[256];
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < 256) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".ini") == 0)
            names[n++] = strndup(e->d_name, len - 4);
    }
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], cmp_names);
    for (int i = 0; i < n; i++) {
        char path[1024], err[512];
        snprintf(path, sizeof path, "%s/%s.ini", dir, names[i]);
        boids_scenario *sc = malloc(sizeof *sc);
        if (sc && boids_scenario_load(path, sc, err, sizeof err) == BOIDS_OK)
            fprintf(f, "%-28s %s\n", names[i], sc->title);
        else
            fprintf(f, "%-28s (does not load: %s)\n", names[i], sc ? err : "out of memory");
        free(sc);
        free(names[i]);
    }
    return n;
}
