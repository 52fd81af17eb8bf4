# vpscript: `make run` installs and builds what running needs and runs the
# main job on a shipped example; `make test` adds what the tests need, then
# runs every test.

PREFIX   ?= /usr/local
# Where `make install` puts things: the stdlib (vp/*.lua) and vp.so where a
# stock lua5.4 finds them, so `require "vp"` there opens every format; the
# shipped scripts beside the program. The installed vpscript finds both from
# its own location (program/scripts.c), falling back to these paths.
BINDIR    = $(PREFIX)/bin
LUADIR    = $(PREFIX)/share/lua/5.4
LUACDIR   = $(PREFIX)/lib/lua/5.4
SCRIPTDIR = $(PREFIX)/share/vpscript/scripts
CC       ?= cc
CLANG    ?= clang
LUA_INC  ?= $(shell pkg-config --cflags lua5.4 2>/dev/null || echo -I/usr/include/lua5.4)
LUA_LIB  ?= $(shell pkg-config --libs lua5.4 2>/dev/null || echo -llua5.4)
VERSION  := 0.1.0
WARN     := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
CFLAGS   ?= -O2 -g
# -pthread: vp.open_all reads several captures on threads (core/jobs).
ALL_CFLAGS = -std=c11 $(WARN) -D_DEFAULT_SOURCE -DVP_VERSION='"$(VERSION)"' \
             -DVP_LUADIR='"$(LUADIR)"' -DVP_SCRIPTDIR='"$(SCRIPTDIR)"' \
             -fPIC -pthread -Ihost $(LUA_INC) $(CFLAGS)
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
             -fno-sanitize-recover=undefined
FUZZ_TIME ?= 15
# make fuzz-long: seconds per harness (FUZZ_JOBS harnesses at a time, tests/fuzz/run.sh).
FUZZ_LONG_TIME ?= 3600

# host/core, host/formats and host/export never include lua.h, and each
# includes only the layers docs/architecture.md allows (make lint checks
# it); bindings/ is the Lua glue; program/ is the vpscript program, above
# them all.
HOST_SRC := $(wildcard host/core/*.c host/formats/*.c host/export/*.c)
CLI_SRC  := $(wildcard program/*.c)
BIND_SRC := $(wildcard bindings/*.c)
LIB_SRC  := $(HOST_SRC) $(BIND_SRC)
HDRS     := $(wildcard host/*/*.h bindings/*.h program/*.h)
# Every compile writes the headers it read into <target>.d (-MMD), with an
# empty rule per header (-MP) so that a header removed since does not stop
# the build; those files are read below, so a change to a header rebuilds
# what includes it, and only that.
DEPFLAGS := -MMD -MP

B        := build
OBJ      := $(B)/obj
ASAN     := $(B)/asan
lib_objs  = $(patsubst %.c,$(1)/%.o,$(LIB_SRC))
CTESTS   := $(patsubst tests/c/%.c,$(B)/ctest/%,$(wildcard tests/c/test_*.c))
# C harnesses (tests/fuzz/fuzz_*.c) link the parser layer; Lua harnesses
# (tests/fuzz/lua_*.lua, run by tests/fuzz/lua_driver.c) the bindings too.
FUZZERS  := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c)) \
            $(patsubst tests/fuzz/lua_%.lua,$(B)/fuzz/fuzz_%,$(wildcard tests/fuzz/lua_*.lua))
FUZZ_CC   = $(CLANG) -std=c11 -D_DEFAULT_SOURCE -pthread -g -O1 -Ihost -fsanitize=fuzzer,address,undefined
LUA_FILES := $(shell find stdlib scripts tests examples bench tools -name '*.lua' 2>/dev/null | sort)

.PHONY: all deps test-deps run test check ctest spec consumers docs-png asan fuzz fuzz-short fuzz-long bench bench-huge calibrate lint install uninstall clean examples docs docs-check readme
.DEFAULT_GOAL := all

all: vpscript vp.so

# What building and running need (Debian packages, tools/deps.sh run);
# test-deps adds what the tests need, the npm packages make consumers reads
# with among them.
deps:
	@sh tools/deps.sh run

test-deps:
	@sh tools/deps.sh test

$(OBJ)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(DEPFLAGS) -c $< -o $@

$(ASAN)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) $(DEPFLAGS) -c $< -o $@

vpscript: $(patsubst %.c,$(OBJ)/%.o,$(CLI_SRC)) $(call lib_objs,$(OBJ))
	$(CC) $(ALL_CFLAGS) -o $@ $^ $(LUA_LIB) -lreadline -lm

# Lua C modules leave the Lua API undefined: the interpreter provides it.
vp.so: $(call lib_objs,$(OBJ))
	$(CC) $(ALL_CFLAGS) -shared -o $@ $^ -lm

$(ASAN)/vpscript: $(patsubst %.c,$(ASAN)/%.o,$(CLI_SRC)) $(call lib_objs,$(ASAN))
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) -o $@ $^ $(LUA_LIB) -lreadline -lm

# C tests link the sanitized objects make asan builds anyway (compiling the
# host layer again for each test took minutes of CI); the VProf writer's
# test links the benchmark's writer, and so does the test of several
# captures at once, which writes its captures with it.
$(B)/ctest/%: tests/c/%.c $(patsubst %.c,$(ASAN)/%.o,$(HOST_SRC))
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(SAN_FLAGS) $(DEPFLAGS) -Ibench -o $@ $< $(filter %.o,$^) -lm
$(B)/ctest/test_vprof_write: $(ASAN)/bench/vprof_write.o
$(B)/ctest/test_vprof_jobs: $(ASAN)/bench/vprof_write.o

# The library built once with the fuzzers' instrumentation, for every harness.
.PRECIOUS: $(B)/fuzzobj/%.o
$(B)/fuzzobj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(FUZZ_CC) $(LUA_INC) $(DEPFLAGS) -c $< -o $@

# C fuzzers link the parser layer only: it never includes lua.h.
$(B)/fuzz/%: tests/fuzz/%.c $(patsubst %.c,$(B)/fuzzobj/%.o,$(HOST_SRC))
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(DEPFLAGS) -o $@ $< $(patsubst %.c,$(B)/fuzzobj/%.o,$(HOST_SRC)) -lm

# Lua fuzzers: the driver built per harness, with the bindings and Lua; the
# harness and the stdlib are read from this tree when the fuzzer starts.
$(B)/fuzz/fuzz_%: tests/fuzz/lua_%.lua tests/fuzz/lua_driver.c $(patsubst %.c,$(B)/fuzzobj/%.o,$(LIB_SRC))
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(DEPFLAGS) -Ibindings $(LUA_INC) -DVP_FUZZ_HARNESS='"$*"' -DVP_FUZZ_ROOT='"$(CURDIR)"' \
	    -o $@ tests/fuzz/lua_driver.c $(patsubst %.c,$(B)/fuzzobj/%.o,$(LIB_SRC)) $(LUA_LIB) -lm

examples: all
	./vpscript examples/generate.lua examples

# The generated parts of README.md and docs/ (script samples, the REPL
# session, the metric table, the API reference); a spec fails when one is stale.
docs: all examples
	./vpscript tools/gen_docs.lua

readme: docs

# Every shell command of README.md and docs/ run as typed, in a copy of the
# tree, its output checked against the one shown (tests/docs_run_spec.lua
# does the same inside make spec).
docs-check: all examples
	./vpscript tools/docs_run.lua

# The pictures of the example report in docs/ (docs/report.md, the README):
# report.lua's pages drawn by headless chromium (make test-deps), one
# section each: the static page (scripting off), then its interactive
# views, each after a few of report.js's own calls (window.vpReport).
DOCS_PNG := frametime distribution budget
docs-png: all examples
	@mkdir -p $(B)/docs
	./vpscript scripts/report.lua examples/sample.vprof -o $(B)/docs/sample.html
	./vpscript scripts/report.lua examples/runs/new/run1.vprof --baseline examples/runs/base/run1.vprof \
	    -o $(B)/docs/runs.html
	for s in $(DOCS_PNG); do node tools/consumers/shoot.mjs $(B)/docs/sample.html docs/report-$$s.png "#$$s" || exit 1; done
	node tools/consumers/shoot.mjs $(B)/docs/runs.html docs/report-baseline.png '#baseline svg.vp-chart'
	node tools/consumers/shoot.mjs $(B)/docs/sample.html docs/report-live-frametime.png '#frametime' \
	    --js 'vpReport.setView(3000, 3200)'
	node tools/consumers/shoot.mjs $(B)/docs/sample.html docs/report-tree.png '#tree' --js 'vpReport.openFrame(3100)'
	node tools/consumers/shoot.mjs $(B)/docs/sample.html docs/report-causes.png '#frametime' \
	    --js 'document.querySelector("#causes tr[data-cause]").click()'
	node tools/consumers/shoot.mjs $(B)/docs/sample.html docs/report-live-budget.png '#budget' \
	    --js 'vpReport.pickGroups(["Physics", "Streaming", "Scripting"]); document.querySelector("#budget button[data-mode=lines]").click()'
	node tools/consumers/shoot.mjs $(B)/docs/runs.html docs/report-compare.png '#vp-live-compare' \
	    --js 'vpReport.compare.pick(3, 5)'

run: deps all examples
	./vpscript scripts/hitches.lua examples/sample.vprof

ctest: $(CTESTS)
	@for t in $(CTESTS); do echo "== $$t"; $$t || exit 1; done

spec: all examples
	./vpscript tests/run_busted.lua

# The edit loop's tier: the C tests and every spec not tagged #slow (a big
# input, a whole-tree run, a wait for a signal or a grace time), in under a
# minute; make test runs everything.
check: all examples
	$(MAKE) --no-print-directory -j2 $(CTESTS)
	$(MAKE) --no-print-directory ctest
	./vpscript tests/run_busted.lua --exclude-tags=slow

# Under ASan the specs tagged #resource (memory and CPU budgets: the shadow
# memory and slow code make their figures meaningless) are left out.
asan: test-deps $(ASAN)/vpscript vp.so examples
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	    VPSCRIPT_BIN=$(ASAN)/vpscript $(ASAN)/vpscript tests/run_busted.lua --exclude-tags=resource

fuzz-short: $(FUZZERS) all examples
	@sh tests/fuzz/run.sh $(FUZZ_TIME) $(FUZZERS)

fuzz: $(FUZZERS) all examples
	@sh tests/fuzz/run.sh $${FUZZ_TIME:-300} $(FUZZERS)

# Hours-long runs outside CI: FUZZ_LONG_TIME seconds per harness, inputs up
# to the sizes that reach the quadratic cases (deep chains, long lines);
# the corpora in build/fuzz/corpus_* keep growing between runs.
fuzz-long: $(FUZZERS) all examples
	@FUZZ_MODE=long sh tests/fuzz/run.sh $(FUZZ_LONG_TIME) $(FUZZERS)

# Exports and reports read back by independent tools (npm packages and
# Debian's chromium, installed by make test-deps): tools/consumers/run.sh.
consumers: all examples
	@sh tools/consumers/run.sh

# Everything test builds is built first, two jobs at a time (CI has two
# processors), the benchmark's programs too (so that make bench cannot
# break unnoticed); the suites then run one after another.
test: test-deps
	$(MAKE) --no-print-directory -j2 all $(ASAN)/vpscript $(CTESTS) $(FUZZERS) $(B)/clang-check $(BENCH_BIN)
	$(MAKE) --no-print-directory lint ctest spec consumers
	$(MAKE) --no-print-directory asan
	$(MAKE) --no-print-directory fuzz-short FUZZ_TIME=$(FUZZ_TIME)
	@echo "make test: all suites passed"

# The layers' include rules (docs/architecture.md): tools/check_layers.sh.
lint: all
	luacheck -q $(LUA_FILES)
	sh tools/check_layers.sh
	$(MAKE) --no-print-directory -s $(B)/clang-check

# The code must compile warning-free under clang as well as gcc: the
# program, its C tests and the benchmark's C (the fuzzers are clang's own).
CLANG_CHECKED := $(LIB_SRC) $(CLI_SRC) $(wildcard tests/c/*.c) $(wildcard bench/*.c)
$(B)/clang-check: $(CLANG_CHECKED) $(HDRS) $(wildcard tests/c/*.h bench/*.h)
	@mkdir -p $(B)
	@for f in $(CLANG_CHECKED); do \
	    $(CLANG) -std=c11 $(WARN) -D_DEFAULT_SOURCE -fsyntax-only -Ihost -Ibench $(LUA_INC) $$f || exit 1; done
	@touch $@

# The generator links its C writer only; the floor links nothing of ours.
BENCH_BIN := $(B)/bench/gen_vprof $(B)/bench/floor $(B)/bench/floor_groups
GEN_VPROF_SRC := bench/gen_vprof.c bench/vprof_write.c host/core/vp_error.c
$(B)/bench/gen_vprof: $(GEN_VPROF_SRC) bench/vprof_write.h host/core/vp_error.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -O2 -o $@ $(GEN_VPROF_SRC)
$(B)/bench/floor: bench/floor.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -O2 -o $@ bench/floor.c
$(B)/bench/floor_groups: bench/floor.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -O2 -DFLOOR_GROUPS=1 -o $@ bench/floor.c

# Two capture shapes, each against the floor and cat, then the wide one
# exported to every target and drawn by report.lua, and report.lua's page
# of a 100,000-frame capture against its targets, opened in Chromium
# (bench/run.sh; sizes: BENCH_WIDE, BENCH_LONG, BENCH_REPORT; repeats:
# BENCH_RUNS); then history.lua's store and change points (bench/history.lua).
# bench-huge writes a 4 GB capture, measures hitches.lua and budget.lua on
# it and deletes it.
bench: all $(BENCH_BIN)
	@sh bench/run.sh wide long exports report
	@./vpscript bench/history.lua

bench-huge: all $(BENCH_BIN)
	@sh bench/run.sh huge

# How often compare's verdicts are false alarms and how often they find a
# planted change: first on pairs of whole captures shaped like real ones
# (drift and spikes, a scripted benchmark, free play, runs: tools/families.lua),
# then each method on simulated drifting frame times (tools/calibrate.lua);
# docs/compare.md shows both tables. A benchmark, not a test: about fifteen
# minutes; CALIBRATE_ARGS=--quick for a rougher one.
CALIBRATE_ARGS ?=
calibrate: all
	./vpscript tools/families.lua $(CALIBRATE_ARGS)
	./vpscript tools/calibrate.lua $(CALIBRATE_ARGS)
	./vpscript tools/calibrate_history.lua

# DESTDIR stages the tree (packaging, tests/install_spec.lua); uninstall
# removes the two files and the directories that only vpscript uses.
STDLIB_TOP = $(notdir $(wildcard stdlib/*))

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LUACDIR) $(DESTDIR)$(SCRIPTDIR)
	install -m 755 vpscript $(DESTDIR)$(BINDIR)/vpscript
	install -m 755 vp.so $(DESTDIR)$(LUACDIR)/vp.so
	install -m 644 scripts/*.lua $(DESTDIR)$(SCRIPTDIR)/
	for f in $$(cd stdlib && find . -name '*.lua' -o -name '*.js' | sort); do \
	    install -D -m 644 "stdlib/$$f" "$(DESTDIR)$(LUADIR)/$$f" || exit 1; done

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/vpscript $(DESTDIR)$(LUACDIR)/vp.so
	rm -rf $(DESTDIR)$(PREFIX)/share/vpscript $(addprefix $(DESTDIR)$(LUADIR)/,$(STDLIB_TOP))

clean:
	rm -rf $(B) vpscript vp.so

-include $(shell find $(B) -name '*.d' 2>/dev/null)
