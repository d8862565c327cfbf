# stackprint: build, test, install.  See README.md.
#   make            build $(BUILD)/stackprint
#   make check      bootstrap, build and run every test (SANITIZE=1: ASan+UBSan)
#   make demo       bootstrap, build, probe this machine, sign, verify, check
#   make install    PREFIX=/usr/local DESTDIR= : binary, man pages, the
#                   shipped policies in $(PREFIX)/share/stackprint/policies
#                   (check's default) and the bash completion
#   make bench      benchmarks against peers (bench/run); fails on a missed target
#   make fuzz       libFuzzer targets under fuzz/ (FUZZ_SECONDS=60 each)

VERSION   = 0.1.0
PREFIX   ?= /usr/local
BINDIR   ?= $(PREFIX)/bin
MANDIR   ?= $(PREFIX)/share/man
DATADIR  ?= $(PREFIX)/share/stackprint
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
SANITIZE ?= 0
ifeq ($(SANITIZE),1)
BUILD    ?= build-san
SANFLAGS  = -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
else
BUILD    ?= build
SANFLAGS  =
endif

CC       ?= cc
PKGS      = libpci libarchive libcrypto yaml-0.1 jansson libisal libzstd
# pkg-config runs when a recipe first needs its answer, never when this file
# is read: `make demo` and `make check` install pkg-config and the -dev
# packages (scripts/bootstrap) before anything is compiled.  The $(eval)
# keeps each answer after its first use (one pkg-config run, not one per file).
PKG_CFLAGS = $(eval PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) rpm libxml-2.0 2>/dev/null))$(PKG_CFLAGS)
# librpm is dlopen'd by fingerprint/probe_rpm.c only when a root holds an
# rpm database (linked, it and its Lua, sqlite and libgcrypt cost every run
# a few ms): compiled against pkg-config's rpm, loaded by its SONAME.
# libxml2 (JUnit reports, junit/) likewise: its headers only; the library is
# opened with dlopen by the commands that read XML (junit/libxml.h says why).
RPM_SONAME = $(eval RPM_SONAME := $(shell objdump -p $$(pkg-config --variable=libdir rpm 2>/dev/null)/librpm.so 2>/dev/null | sed -n 's/^ *SONAME *//p'))$(RPM_SONAME)
# libarchive is linked statically (Debian's libarchive-dev ships the .a):
# stackprint uses only its tar reader, so only that part is linked, while the
# shared library would load libxml2, ICU and libstdc++ at every start (about
# 1.5 ms of a 10 ms host probe, bench/probe).  The rest stays shared.
PKG_LIBS   = $(eval PKG_LIBS := $(shell pkg-config --libs $(filter-out libarchive,$(PKGS)) 2>/dev/null) \
              -Wl,-Bstatic -larchive -Wl,-Bdynamic)$(PKG_LIBS)
# unit tests link the shared libarchive: they also write tar streams
TEST_LIBS  = $(eval TEST_LIBS := $(shell pkg-config --libs $(PKGS) cmocka 2>/dev/null) -lpthread)$(TEST_LIBS)

CFLAGS   ?= -O2 -g
WARNINGS  = -Wall -Wextra -Wshadow -Wformat=2 -Wno-unused-parameter -Wstrict-prototypes -Wvla
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -DSP_VERSION='"$(VERSION)"' -I. $(WARNINGS) \
             -DSP_DATADIR='"$(DATADIR)"' \
             $(if $(RPM_SONAME),-DSP_LIBRPM_SONAME='"$(RPM_SONAME)"') \
             $(PKG_CFLAGS) $(CFLAGS) $(SANFLAGS) -MMD -MP
ALL_LDFLAGS = $(LDFLAGS) $(SANFLAGS)
LIBS      = $(PKG_LIBS) -lpthread

LIB_SRC  := $(sort $(wildcard common/*.c manifest/*.c fingerprint/*.c checks/*.c export/*.c junit/*.c))
CLI_SRC  := $(sort $(wildcard cli/*.c))
UNIT_SRC := $(sort $(wildcard tests/unit/test_*.c))
LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
MAN      := $(sort $(wildcard man/*.1 man/*.5))

.PHONY: all check demo install uninstall bench clean bootstrap unit fuzz
all: $(BUILD)/stackprint

bootstrap:
	@scripts/bootstrap

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BUILD)/libstackprint.a: $(LIB_OBJ)
	@rm -f $@
	@echo "  AR      $@"
	@ar rcs $@ $^

$(BUILD)/stackprint: $(CLI_OBJ) $(BUILD)/libstackprint.a
	@echo "  LD      $@"
	@$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libstackprint.a $(LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/libstackprint.a tests/unit/testlib.h
	@mkdir -p $(dir $@)
	@echo "  TEST    $@"
	@$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libstackprint.a $(TEST_LIBS)

unit: $(UNIT_BIN)

check: bootstrap
	@scripts/bootstrap-npm
	@$(MAKE) --no-print-directory all unit
	@SANITIZE=$(SANITIZE) /usr/bin/python3 tests/run --build $(BUILD)

# a second make, as for check: the build starts once bootstrap has finished
demo: bootstrap
	@$(MAKE) --no-print-directory all
	@scripts/demo $(BUILD)/stackprint

fuzz:
	@scripts/bootstrap --fuzz
	@fuzz/run $(FUZZ_SECONDS)

bench:
	@scripts/bootstrap --bench
	@$(MAKE) --no-print-directory all
	@bench/run $(BUILD)/stackprint

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5
	install -m 0755 $(BUILD)/stackprint $(DESTDIR)$(BINDIR)/stackprint
	for m in $(MAN); do \
	  s=$${m##*.}; install -m 0644 $$m $(DESTDIR)$(MANDIR)/man$$s/; done
	install -d $(DESTDIR)$(DATADIR)/policies/neuron
	install -m 0644 policies/neuron/*.yaml policies/neuron/n2-manifest.json $(DESTDIR)$(DATADIR)/policies/neuron/
	install -d $(DESTDIR)$(COMPLETIONDIR)
	install -m 0644 completion/stackprint.bash $(DESTDIR)$(COMPLETIONDIR)/stackprint

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/stackprint
	for m in $(MAN); do s=$${m##*.}; rm -f $(DESTDIR)$(MANDIR)/man$$s/$${m#man/}; done
	rm -rf $(DESTDIR)$(DATADIR)
	rm -f $(DESTDIR)$(COMPLETIONDIR)/stackprint

clean:
	rm -rf build build-san build-*

# check's default policy folder is DATADIR's, compiled in; the stamp holds
# the DATADIR it was built with, so a changed PREFIX rebuilds it
$(BUILD)/datadir.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(DATADIR)' | cmp -s - $@ || echo '$(DATADIR)' >$@
$(BUILD)/obj/cli/cmd_check.o: $(BUILD)/datadir.stamp
$(BUILD)/obj/cli/cmd_check.o: ALL_CFLAGS += -DSP_DATADIR='"$(DATADIR)"'
.PHONY: FORCE
FORCE:

-include $(LIB_OBJ:.o=.d) $(CLI_OBJ:.o=.d)
