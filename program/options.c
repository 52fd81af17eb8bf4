/* The command line: the options lua takes plus --list, the usage text and
 * the version line. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

void vp_cli_version_print(void)
{
    printf("%s %s (%s)\n", PROGNAME, VP_VERSION, LUA_RELEASE);
}

void vp_cli_usage_print(FILE *f, const vp_cli_paths *p)
{
    fprintf(f,
            "usage: %s [options] [script [args]]\n"
            "       %s -i [capture...]\n"
            "\n"
            "Run a Lua analysis script over game-profiler captures (the `vp` module is\n"
            "loaded and set as a global), or explore captures in the REPL.\n"
            "\n"
            "options:\n"
            "  -e stat        execute the Lua statement 'stat'\n"
            "  -l mod         require module 'mod' into global 'mod'\n"
            "  -l g=mod       require module 'mod' into global 'g'\n"
            "  -i             start the REPL; each capture given is opened as `cap`\n"
            "                 (and cap1, cap2, ... when several)\n"
            "  -v, --version  print the version\n"
            "  -h, --help     print this help and exit\n"
            "  --list         list the shipped scripts and what each one does\n"
            "  -W             turn Lua warnings on\n"
            "  -E             ignore LUA_PATH, LUA_CPATH and VPSCRIPT_PATH\n"
            "  --             stop handling options\n"
            "  -              run standard input as the script\n"
            "\n"
            "Options -e and -l run in the order given, before the script. Without\n"
            "arguments, %s starts the REPL when standard input is a terminal and\n"
            "runs standard input as a script otherwise.\n"
            "\n"
            "The script is looked up as given, then in each directory of\n"
            "VPSCRIPT_PATH (colon-separated), then among the shipped scripts; the\n"
            "'.lua' suffix may be left out there (`%s hitches cap.vprof`).\n"
            "The script sees its arguments in `arg` (arg[0] is the script) and as `...`.\n"
            "\n"
            "exit status: 0 success, 1 script error, 2 usage error or unreadable or\n"
            "malformed input, 3 a gate failed, 129 hangup (SIGHUP), 130 interrupted\n"
            "(Ctrl-C), 141 standard output closed, 143 terminated (SIGTERM).\n"
            "\n"
            "environment:\n"
            "  VPSCRIPT_PATH     directories searched for scripts (and modules)\n"
            "  VPSCRIPT_HISTORY  REPL history file (default ~/.vpscript_history)\n"
            "  LUA_PATH, LUA_CPATH  as for lua5.4; the stdlib comes first; modules are\n"
            "                    never taken from the working directory unless named there\n"
            "\n"
            "stdlib:  %s\n"
            "scripts: %s\n",
            PROGNAME, PROGNAME, PROGNAME, PROGNAME, p->stdlib, p->scripts);
}

static void usage_error(const char *fmt, const char *what)
{
    fprintf(stderr, "%s: ", PROGNAME);
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\nusage: %s [options] [script [args]]  (try '%s --help')\n", PROGNAME,
            PROGNAME);
}

int vp_cli_args_parse(int argc, char **argv, vp_cli_opts *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-') {
            o->script = i;
            return 0;
        }
        if (a[1] == '\0') {
            o->script = i;
            o->stdin_script = 1;
            return 0;
        }
        if (strcmp(a, "--") == 0) {
            /* After "--", even "-" names a file. */
            o->script = i + 1 < argc ? i + 1 : 0;
            return 0;
        }
        if (strcmp(a, "--version") == 0) {
            o->has_v = 1;
        } else if (strcmp(a, "--help") == 0) {
            o->has_help = 1;
        } else if (strcmp(a, "--list") == 0) {
            o->has_list = 1;
        } else if (a[1] == 'e' || a[1] == 'l') {
            /* As for lua, -e means "nothing more to do"; -l does not. */
            o->has_e |= a[1] == 'e';
            if (a[2] == '\0' && (++i >= argc || argv[i][0] == '-')) {
                usage_error("'%s' needs an argument", a);
                return EXIT_USAGE;
            }
        } else if (a[2] != '\0' || !strchr("ivhEW", a[1])) {
            usage_error("unrecognized option '%s'", a);
            return EXIT_USAGE;
        } else if (a[1] == 'i') {
            o->has_i = 1;
        } else if (a[1] == 'v') {
            o->has_v = 1;
        } else if (a[1] == 'h') {
            o->has_help = 1;
        } else if (a[1] == 'E') {
            o->has_E = 1;
        } else {
            o->has_W = 1;
        }
    }
    return 0;
}
