# dtui - build, test, install.
#
#   make            build dtrace and dtui into $(B)/
#   make run        build and start the TUI
#   make check      build and run every test (unit, script, TUI)
#   make check REPEAT=N STRESS=1 TESTS=pattern   N runs, beside CPU hogs
#   make check-stress five runs beside a CPU hog on every core
#   make check-asan the same under ASan+UBSan, in build-asan/
#   make fuzz       build the libFuzzer targets (needs clang)
#   make install    PREFIX=/usr/local DESTDIR=
#
# Sources are found by wildcard: a new .c file in a module directory is
# built into that module's library, and tests/unit/<module>/test_<x>.c
# becomes one cmocka binary.  Each module sees only its own directory and
# the public headers of the modules below it (STYLE.md, section 1).

ifeq ($(filter clean distclean,$(MAKECMDGOALS)),)
-include config.mk
endif

CC ?= cc
PREFIX ?= /usr/local
B ?= build
SAN ?=

WARN = -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes \
       -Wmissing-prototypes -Wformat=2 -Wno-format-nonliteral
OPT ?= -O2
BASE_CFLAGS = -std=gnu11 -g $(OPT) $(WARN) -D_GNU_SOURCE -MMD -MP -Iinclude
ifneq ($(SAN),)
BASE_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer \
	       -fno-sanitize-recover=undefined
SAN_LDFLAGS = -fsanitize=address,undefined
endif
LDFLAGS_ALL = $(SAN_LDFLAGS) $(LDFLAGS)

# Per-module include paths: the public headers (include/, in BASE_CFLAGS)
# plus the module's own directory.  The providers are one module in one
# folder per event source (providers/perf/, providers/bpf/ ...); the
# folders see each other.  Tests may see every module's internals.
PROV_DIRS := $(sort $(patsubst %/,%,$(dir $(wildcard providers/*/*.[ch]))))
INC_ks     = -Ikernel-shim
INC_prov   = -Iproviders $(addprefix -I,$(PROV_DIRS)) $(ELF_CFLAGS)
INC_eng    = -Iengine
INC_tui    = -Itui $(CURSES_CFLAGS) $(PROMPT_CFLAGS)
INC_cmd    = -Icmd/dtrace
INC_test   = -Itests/support -Ikernel-shim -Iproviders \
	     $(addprefix -I,$(PROV_DIRS)) -Iengine -Itui \
	     $(CURSES_CFLAGS) $(PROMPT_CFLAGS) $(CMOCKA_CFLAGS) $(ELF_CFLAGS)

KS_SRC   := $(sort $(wildcard kernel-shim/*.c))
PROV_SRC := $(sort $(wildcard providers/*.c providers/*/*.c))
ENG_SRC  := $(sort $(wildcard engine/*.c))
TUI_SRC  := $(sort $(filter-out tui/main.c,$(wildcard tui/*.c)))
CMD_SRC  := $(sort $(wildcard cmd/dtrace/*.c))
SUP_SRC  := $(sort $(wildcard tests/support/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/*/test_*.c))

obj = $(patsubst %.c,$(B)/obj/%.o,$(1))
KS_OBJ   := $(call obj,$(KS_SRC))
PROV_OBJ := $(call obj,$(PROV_SRC))
ENG_OBJ  := $(call obj,$(ENG_SRC))
TUI_OBJ  := $(call obj,$(TUI_SRC))
CMD_OBJ  := $(call obj,$(CMD_SRC))
SUP_OBJ  := $(call obj,$(SUP_SRC))
UNIT_BIN := $(patsubst tests/unit/%.c,$(B)/tests/unit/%,$(UNIT_SRC))
FUZZ_SRC := $(sort $(wildcard tests/fuzz/*/fuzz_*.c))
FUZZ_REPLAY := $(patsubst tests/fuzz/%.c,$(B)/tests/fuzz/%,$(FUZZ_SRC))

LIBKS   = $(B)/libks.a
LIBPROV = $(B)/libprov.a
LIBENG  = $(B)/libeng.a
LIBTUI  = $(B)/libtui.a
LIBSUP  = $(B)/libtestsupport.a
SYS_LIBS = $(ELF_LIBS) -lpthread -lm -lrt
ENG_LINK = $(LIBENG) $(LIBPROV) $(LIBKS) $(SYS_LIBS)
TUI_LINK = $(LIBTUI) $(ENG_LINK) $(PROMPT_LIBS) $(CURSES_LIBS)

DTRACE = $(B)/dtrace
DTUI   = $(B)/dtui

# Keep intermediate objects: otherwise make removes test objects after the
# run, and its 'rm' line would follow the test summary.
.SECONDARY:

.PHONY: all run check check-stress check-unit check-asan fuzz bench install clean distclean
all: $(DTRACE) $(DTUI)

config.mk: configure
	./configure

$(B)/obj/kernel-shim/%.o: kernel-shim/%.c config.mk
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(INC_ks) $(CFLAGS) -c $< -o $@
$(B)/obj/providers/%.o: providers/%.c config.mk
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(INC_prov) $(CFLAGS) -c $< -o $@
$(B)/obj/engine/%.o: engine/%.c config.mk
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(INC_eng) $(CFLAGS) -c $< -o $@
$(B)/obj/tui/%.o: tui/%.c config.mk
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(INC_tui) $(CFLAGS) -c $< -o $@
$(B)/obj/cmd/%.o: cmd/%.c config.mk
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(INC_cmd) $(CFLAGS) -c $< -o $@
$(B)/obj/tests/%.o: tests/%.c config.mk
	@mkdir -p $(@D)
	$(CC) $(BASE_CFLAGS) $(INC_test) $(CFLAGS) -c $< -o $@

# An empty archive is valid, so every library exists from day one.
define mklib
	@mkdir -p $(@D)
	@rm -f $@
	$(AR) rcs $@ $^ 2>/dev/null || $(AR) rcs $@
endef
$(LIBKS): $(KS_OBJ) ; $(mklib)
$(LIBPROV): $(PROV_OBJ) ; $(mklib)
$(LIBENG): $(ENG_OBJ) ; $(mklib)
$(LIBTUI): $(TUI_OBJ) ; $(mklib)
$(LIBSUP): $(SUP_OBJ) ; $(mklib)

$(DTRACE): $(CMD_OBJ) $(LIBENG) $(LIBPROV) $(LIBKS)
	$(CC) $(LDFLAGS_ALL) -o $@ $(CMD_OBJ) $(ENG_LINK)
$(DTUI): $(B)/obj/tui/main.o $(LIBTUI) $(LIBENG) $(LIBPROV) $(LIBKS)
	$(CC) $(LDFLAGS_ALL) -o $@ $< $(TUI_LINK)

$(B)/tests/unit/%: $(B)/obj/tests/unit/%.o $(LIBSUP) $(LIBTUI) $(LIBENG) $(LIBPROV) $(LIBKS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $< $(LIBSUP) $(TUI_LINK) $(CMOCKA_LIBS)

run: all
	./$(DTUI)

check-unit: $(UNIT_BIN) $(FUZZ_REPLAY)
# REPEAT=N runs the suite N times, STRESS=1 beside a CPU hog on every
# core, TESTS='pattern ...' only the tests named (tests/repeat.sh).
check: all $(UNIT_BIN) $(FUZZ_REPLAY)
	@B=$(B) REPEAT="$(REPEAT)" STRESS="$(STRESS)" TESTS="$(TESTS)" \
	    sh tests/repeat.sh

check-stress: all $(UNIT_BIN) $(FUZZ_REPLAY)
	@B=$(B) REPEAT="$(or $(REPEAT),5)" STRESS=1 TESTS="$(TESTS)" \
	    sh tests/repeat.sh

check-asan:
	$(MAKE) B=build-asan SAN=1 OPT=-O1 check

# libFuzzer targets: tests/fuzz/<target>/fuzz_<target>.c, linked with the
# libraries built with clang and the fuzzer sanitizer.
fuzz:
	$(MAKE) B=build-fuzz CC=clang OPT=-O1 \
	    CFLAGS="-fsanitize=fuzzer-no-link,address,undefined" \
	    $(patsubst tests/fuzz/%.c,build-fuzz/fuzz/%,$(FUZZ_SRC))
build-fuzz/fuzz/%: tests/fuzz/%.c $(LIBSUP) $(LIBTUI) $(LIBENG) $(LIBPROV) $(LIBKS)
	@mkdir -p $(@D)
	$(CC) -g -O1 -fsanitize=fuzzer,address,undefined $(BASE_CFLAGS) \
	    $(INC_test) -o $@ $< $(LIBSUP) $(TUI_LINK)

# The same targets built by the normal compiler with a main() that
# replays their corpora (tests/fuzz/replay.c); `make check` runs them.
$(B)/tests/fuzz/%: $(B)/obj/tests/fuzz/%.o $(B)/obj/tests/fuzz/replay.o \
    $(LIBSUP) $(LIBTUI) $(LIBENG) $(LIBPROV) $(LIBKS)
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS_ALL) -o $@ $< $(B)/obj/tests/fuzz/replay.o $(LIBSUP) \
	    $(TUI_LINK)

bench: all
	@sh bench/run.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/dtui/themes
	install -m 755 $(DTRACE) $(DTUI) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 644 themes/* $(DESTDIR)$(PREFIX)/share/dtui/themes/

clean:
	rm -rf build build-asan build-fuzz

distclean: clean
	rm -f config.mk

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
