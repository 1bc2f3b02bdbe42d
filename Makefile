# rockpool - plain Makefile. User CFLAGS/LDFLAGS are appended, never replaced.
# Targets: all (default), demo, check, test, bench, fuzz, install, uninstall, format, clean.

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
INSTALL ?= install
INSTALL_PROGRAM ?= $(INSTALL) -m 755
INSTALL_DATA ?= $(INSTALL) -m 644
PKG_CONFIG ?= pkg-config

CC ?= cc
BUILD ?= build
PKGS := libpng zlib libdeflate libavformat libavcodec libswscale libavutil libxxhash

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)

# Evaluated lazily, so `make demo` can install the libraries before pkg-config runs.
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS = $(shell $(PKG_CONFIG) --libs $(PKGS))
CMOCKA_CFLAGS = $(shell $(PKG_CONFIG) --cflags cmocka)
CMOCKA_LIBS = $(shell $(PKG_CONFIG) --libs cmocka)

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
# SAN=1: AddressSanitizer + UndefinedBehaviorSanitizer (make check builds it in build-san/).
SAN_FLAGS = $(if $(SAN),-fsanitize=address$(comma)undefined -fno-sanitize-recover=all \
            -fno-omit-frame-pointer)
comma := ,
RP_CFLAGS = -std=c11 -D_GNU_SOURCE -O2 -g $(WARN) -pthread -DRP_VERSION='"$(VERSION)"' \
            $(SAN_FLAGS) $(PKG_CFLAGS) $(CFLAGS)
RP_LDFLAGS = -pthread $(SAN_FLAGS) $(LDFLAGS)
RP_LIBS = $(PKG_LIBS) -lm $(LIBS)

# The library: every file of src/; the program: src/cli/ (see README "Architecture").
LIB_SRCS := $(wildcard src/*.c)
LIB_OBJS := $(LIB_SRCS:src/%.c=$(BUILD)/%.o)
CLI_SRCS := $(wildcard src/cli/*.c)
CLI_OBJS := $(CLI_SRCS:src/cli/%.c=$(BUILD)/cli/%.o)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)

FUZZ_CORE = $(CORE_SRCS)
FUZZ_IMAGE := src/image.c src/common.c
# The core (scene, timeline, simulation, renderer, texture, threads): what tests/tools/rpcore.c
# links. No FFmpeg, libpng, zlib or libm, so it runs under valgrind on any CPU and
# cross-builds statically (make cross).
CORE_SRCS := src/scene.c src/scene_lex.c src/settings.c src/events.c src/clock.c src/engine.c \
             src/water.c src/water_simd.c src/render.c src/render_simd.c src/upscale.c \
             src/upscale_simd.c src/light.c src/light_simd.c src/texture.c src/pool.c \
             src/simd.c src/common.c
CORE_CFLAGS = -std=c11 -D_GNU_SOURCE -O2 -g $(WARN) -pthread $(SAN_FLAGS) $(CFLAGS)

.PHONY: all demo check test deps tests cross bench fuzz gallery install uninstall format clean

all: $(BUILD)/rockpool

deps:
	./scripts/install-deps

$(BUILD)/%.o: src/%.c $(wildcard src/*.h) | $(BUILD)
	$(CC) $(RP_CFLAGS) -MMD -c $< -o $@

$(BUILD)/cli/%.o: src/cli/%.c $(wildcard src/*.h src/cli/*.h) | $(BUILD)
	$(CC) $(RP_CFLAGS) -Isrc -MMD -c $< -o $@

$(BUILD):
	mkdir -p $(BUILD) $(BUILD)/tests $(BUILD)/cli

$(BUILD)/librockpool.a: $(LIB_OBJS)
	$(AR) rcs $@ $^

$(BUILD)/rockpool: $(CLI_OBJS) $(BUILD)/librockpool.a
	$(CC) $(RP_LDFLAGS) -o $@ $^ $(RP_LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/librockpool.a $(wildcard tests/unit/*.h) | $(BUILD)
	$(CC) $(RP_CFLAGS) $(CMOCKA_CFLAGS) -Isrc -Itests/unit -o $@ $< $(BUILD)/librockpool.a \
	    $(RP_LDFLAGS) $(CMOCKA_LIBS) $(RP_LIBS)

# The fuzz target as a plain corpus-replay program (no libFuzzer needed).
$(BUILD)/fuzz_scene_replay: tests/fuzz/fuzz_scene.c $(FUZZ_CORE) $(wildcard src/*.h) | $(BUILD)
	$(CC) $(RP_CFLAGS) -Wno-missing-prototypes -DRP_FUZZ_MAIN -Isrc -o $@ $< $(FUZZ_CORE) \
	    $(RP_LDFLAGS)

# The image loader's fuzz target as a corpus-replay program (links FFmpeg).
$(BUILD)/fuzz_image_replay: tests/fuzz/fuzz_image.c $(BUILD)/librockpool.a $(wildcard src/*.h) | $(BUILD)
	$(CC) $(RP_CFLAGS) -Wno-missing-prototypes -DRP_FUZZ_MAIN -Isrc -o $@ $< \
	    $(BUILD)/librockpool.a $(RP_LDFLAGS) $(RP_LIBS)

# The example program of the public API (examples/frames.c), run by tests/cli/api.sh.
$(BUILD)/examples/frames: examples/frames.c $(BUILD)/librockpool.a $(wildcard src/*.h) | $(BUILD)
	mkdir -p $(BUILD)/examples
	$(CC) $(RP_CFLAGS) -Isrc -o $@ $< $(BUILD)/librockpool.a $(RP_LDFLAGS) $(RP_LIBS)

$(BUILD)/rpcore: tests/tools/rpcore.c $(CORE_SRCS) $(wildcard src/*.h) | $(BUILD)
	$(CC) $(CORE_CFLAGS) -Isrc -o $@ $< $(CORE_SRCS) $(RP_LDFLAGS)

# `make cross`: the core driver for aarch64 and s390x (big-endian), static, with Debian's
# cross compilers (scripts/install-deps installs them and qemu-user); tests/cross/run
# runs them under qemu and compares their frames with the native build's.
CROSS_ARCHS ?= aarch64 s390x
CROSS_BINS = $(CROSS_ARCHS:%=$(BUILD)/cross/rpcore-%)
$(BUILD)/cross/rpcore-%: tests/tools/rpcore.c $(CORE_SRCS) $(wildcard src/*.h)
	@mkdir -p $(BUILD)/cross
	$*-linux-gnu-gcc -std=c11 -D_GNU_SOURCE -O2 $(WARN) -pthread -Isrc -static -o $@ $< \
	    $(CORE_SRCS)

cross: $(CROSS_BINS)

tests: $(BUILD)/rockpool $(UNIT_BINS) $(BUILD)/fuzz_scene_replay $(BUILD)/fuzz_image_replay \
       $(BUILD)/rpcore $(BUILD)/examples/frames

# `make demo`: set up, build, render the example with the built-in texture.
demo: deps
	$(MAKE) all
	$(BUILD)/rockpool -y examples/rain.scene -o demo.mp4
	@echo "rockpool: wrote demo.mp4"

# `make check`: set up, build, run the whole suite three times (gcc, gcc with ASan+UBSan,
# clang), replay the fuzz corpus; also build everything with gcc and with clang at -O3
# -march=native (run there: the unit tests, the fuzz replays and one render compared with
# the first build's frames); cross-build the core driver (make cross: tests/run-all counts
# a failed cross build as a failed check) and compare its frames under qemu with the native
# ones; valgrind on the core driver and two renders; ends with 'N passed, N failed'.
OPT_CFLAGS := -O3 -march=native
check: deps
	$(MAKE) tests
	$(MAKE) BUILD=build-san SAN=1 tests
	$(MAKE) BUILD=build-clang CC=clang tests
	$(MAKE) BUILD=build-o3 CFLAGS="$(CFLAGS) $(OPT_CFLAGS)" tests
	$(MAKE) BUILD=build-clang-o3 CC=clang CFLAGS="$(CFLAGS) $(OPT_CFLAGS)" tests
	-$(MAKE) cross
	BUILDS="$(BUILD) build-san build-clang" UNIT_BUILDS="build-o3 build-clang-o3" \
	    ./tests/run-all

# `make fuzz`: libFuzzer (clang) on the scene parser, then on the image loader, for
# FUZZ_SECONDS each (default 60).
FUZZ_SECONDS ?= 60
fuzz:
	./scripts/install-deps --fuzz
	mkdir -p build/fuzz-corpus
	clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc tests/fuzz/fuzz_scene.c $(FUZZ_CORE) \
	    -o build/fuzz_scene
	build/fuzz_scene -max_total_time=$(FUZZ_SECONDS) -max_len=4096 build/fuzz-corpus \
	    tests/fuzz/corpus/scene
	mkdir -p build/fuzz-corpus-image
	clang -g -O1 -fsanitize=fuzzer,address,undefined -Isrc $(PKG_CFLAGS) tests/fuzz/fuzz_image.c \
	    $(FUZZ_IMAGE) -o build/fuzz_image $(PKG_LIBS)
	build/fuzz_image -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 \
	    -rss_limit_mb=2048 build/fuzz-corpus-image tests/fuzz/corpus/image

test: check

# `make gallery`: the README's stills and animation, rendered from examples/.
gallery: deps
	$(MAKE) all
	./scripts/gallery

bench:
	./scripts/install-deps --bench
	$(MAKE) all
	./bench/run

install: $(BUILD)/rockpool
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5
	$(INSTALL_PROGRAM) $(BUILD)/rockpool $(DESTDIR)$(BINDIR)/rockpool
	$(INSTALL_DATA) man/rockpool.1 $(DESTDIR)$(MANDIR)/man1/rockpool.1
	$(INSTALL_DATA) man/rockpool-scene.5 $(DESTDIR)$(MANDIR)/man5/rockpool-scene.5

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/rockpool $(DESTDIR)$(MANDIR)/man1/rockpool.1 \
	    $(DESTDIR)$(MANDIR)/man5/rockpool-scene.5

format:
	clang-format -i src/*.c src/*.h src/cli/*.c src/cli/*.h tests/unit/*.c tests/tools/*.c

clean:
	rm -rf $(BUILD) build-san build-clang build-o3 build-clang-o3 demo.mp4

-include $(wildcard $(BUILD)/*.d $(BUILD)/cli/*.d)
