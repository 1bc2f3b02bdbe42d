# rockpool - plain Makefile. User CFLAGS/LDFLAGS are appended, never replaced.
# Targets: all (default), demo, check, check-all, test, bench, fuzz, install, install-lib,
# uninstall, format, clean.

PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
INSTALL ?= install
INSTALL_PROGRAM ?= $(INSTALL) -m 755
INSTALL_DATA ?= $(INSTALL) -m 644
PKG_CONFIG ?= pkg-config

CC ?= cc
BUILD ?= build
# The program's libraries. libpng is not one of them (rockpool writes PNG with libdeflate and
# reads images through FFmpeg): the unit tests link it as the independent PNG reader and
# writer their checks compare against (TEST_PKGS).
PKGS := zlib libdeflate libavformat libavcodec libswscale libavutil libxxhash
TEST_PKGS := libpng

VERSION := $(shell cat VERSION 2>/dev/null || echo 0.0.0)
# The core API's version, as include/rpcore.h's RP_CORE_VERSION_MAJOR, _MINOR and _PATCH say
# (rpcore.pc's Version).
CORE_API_VERSION := $(shell awk '/^.define RP_CORE_VERSION_(MAJOR|MINOR|PATCH) / { v = v s $$3; s = "." } \
                      END { print v }' include/rpcore.h)

# Evaluated lazily, so `make demo` can install the libraries before pkg-config runs.
PKG_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS = $(shell $(PKG_CONFIG) --libs $(PKGS))
CMOCKA_CFLAGS = $(shell $(PKG_CONFIG) --cflags cmocka $(TEST_PKGS))
CMOCKA_LIBS = $(shell $(PKG_CONFIG) --libs cmocka $(TEST_PKGS))

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
# SAN=1: AddressSanitizer + UndefinedBehaviorSanitizer (make check builds it in build-san/),
# with float-cast-overflow, which gcc's `undefined` leaves out (a double no int holds).
SAN_FLAGS = $(if $(SAN),-fsanitize=address$(comma)undefined$(comma)float-cast-overflow \
            -fno-sanitize-recover=all \
            -fno-omit-frame-pointer)
comma := ,
RP_CFLAGS = -std=c11 -D_GNU_SOURCE -O2 -g $(WARN) -pthread -DRP_VERSION='"$(VERSION)"' \
            $(SAN_FLAGS) $(PKG_CFLAGS) $(CFLAGS)
RP_LDFLAGS = -pthread $(SAN_FLAGS) $(LDFLAGS)
RP_LIBS = $(PKG_LIBS) -lm $(LIBS)

# The layout (README "Architecture"): the core is every file of src/base, src/scene, src/sim,
# src/look, src/engine, src/x86, src/wasm and src/core (no FFmpeg, libpng, zlib or libm), built as librpcore.a:
# what tests/tools/rpcore.c, the cross builds and plugins link (its API: include/rpcore.h,
# src/core/), and what runs under valgrind on any CPU. The rest of src/ (input, output,
# check, session) needs FFmpeg; the core and the rest make librockpool.a, which the program
# (src/cli/) links like any other user.
CORE_DIRS := base scene sim look engine x86 wasm core
LIB_DIRS := input output check session
CORE_SRCS := $(foreach d,$(CORE_DIRS),$(wildcard src/$(d)/*.c))
REST_SRCS := $(foreach d,$(LIB_DIRS),$(wildcard src/$(d)/*.c))
CORE_OBJS := $(CORE_SRCS:src/%.c=$(BUILD)/obj/%.o)
REST_OBJS := $(REST_SRCS:src/%.c=$(BUILD)/obj/%.o)
CLI_SRCS := $(wildcard src/cli/*.c)
CLI_OBJS := $(CLI_SRCS:src/%.c=$(BUILD)/obj/%.o)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
INCS := -Isrc -Iinclude
# Header dependencies come from the compiler alone: objects are compiled with -MMD -MP
# (X.o's list in X.d), programs built from a C file with DEPS (in .PROGRAM.d beside it,
# hidden from globs over the programs), and the lists are included at the end.
DEPS = -MMD -MP -MF $(@D)/.$(@F).d
dotd = $(foreach f,$(1),$(dir $(f)).$(notdir $(f)).d)
CORE_CFLAGS = -std=c11 -D_GNU_SOURCE -O2 -g $(WARN) -pthread $(SAN_FLAGS) $(INCS) $(CFLAGS)

.PHONY: all demo check check-all test deps tests cross bench fuzz gallery install uninstall format clean

# The man pages as installed: man/'s with the program's version from VERSION in the .TH
# line's footer (man/ itself says just "rockpool", so it never disagrees with -V).
MAN_PAGES := $(BUILD)/man/rockpool.1 $(BUILD)/man/rockpool-scene.5 $(BUILD)/man/rockpool-frei0r.7 \
             $(BUILD)/man/rockpool.3 $(BUILD)/man/rpcore.3

all: $(BUILD)/rockpool $(BUILD)/frei0r/rockpool.so $(MAN_PAGES)

$(MAN_PAGES): $(BUILD)/man/%: man/% VERSION
	@mkdir -p $(@D)
	sed '/^\.TH /s/"rockpool"/"rockpool $(VERSION)"/' $< >$@

deps:
	./scripts/install-deps

# Objects: one directory per source folder, made for each object (so any part of a build
# tree may be missing). The core is compiled without FFmpeg's include paths; the cross
# builds (make cross), whose compilers see no FFmpeg headers at all, show it includes none.
$(CORE_OBJS): $(BUILD)/obj/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(CORE_CFLAGS) -MMD -MP -c $< -o $@

$(REST_OBJS) $(CLI_OBJS): $(BUILD)/obj/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(RP_CFLAGS) $(INCS) -MMD -MP -c $< -o $@

$(BUILD)/librpcore.a: $(CORE_OBJS)
	$(AR) rcs $@ $^

$(BUILD)/librockpool.a: $(CORE_OBJS) $(REST_OBJS)
	$(AR) rcs $@ $^

$(BUILD)/rockpool: $(CLI_OBJS) $(BUILD)/librockpool.a
	$(CC) $(RP_LDFLAGS) -o $@ $^ $(RP_LIBS)

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/librockpool.a
	@mkdir -p $(@D)
	$(CC) $(RP_CFLAGS) $(CMOCKA_CFLAGS) $(INCS) -Itests/unit $(DEPS) -o $@ $< $(BUILD)/librockpool.a \
	    $(RP_LDFLAGS) $(CMOCKA_LIBS) $(RP_LIBS)

# The fuzz targets as plain corpus-replay programs (no libFuzzer needed): the scene parser
# links the core alone, the image loader the whole library.
$(BUILD)/fuzz_scene_replay: tests/fuzz/fuzz_scene.c $(BUILD)/librpcore.a
	$(CC) $(CORE_CFLAGS) -Wno-missing-prototypes -DRP_FUZZ_MAIN $(DEPS) -o $@ $< $(BUILD)/librpcore.a \
	    $(RP_LDFLAGS)

$(BUILD)/fuzz_image_replay: tests/fuzz/fuzz_image.c $(BUILD)/librockpool.a
	$(CC) $(RP_CFLAGS) $(INCS) -Wno-missing-prototypes -DRP_FUZZ_MAIN $(DEPS) -o $@ $< \
	    $(BUILD)/librockpool.a $(RP_LDFLAGS) $(RP_LIBS)

# The example program of the public API (examples/frames.c), run by tests/cli/api.sh. It
# sees include/ alone: the public header is the whole boundary.
$(BUILD)/examples/frames: examples/frames.c $(BUILD)/librockpool.a
	@mkdir -p $(@D)
	$(CC) $(RP_CFLAGS) -Iinclude $(DEPS) -o $@ $< $(BUILD)/librockpool.a $(RP_LDFLAGS) $(RP_LIBS)

# The example program of the core API (examples/core_frames.c), run by tests/cli/api.sh:
# it sees include/rpcore.h and links the core library alone.
$(BUILD)/examples/core_frames: examples/core_frames.c $(BUILD)/librpcore.a
	@mkdir -p $(@D)
	$(CC) $(filter-out -Isrc,$(CORE_CFLAGS)) $(DEPS) -o $@ $< $(BUILD)/librpcore.a $(RP_LDFLAGS)

# The core driver: links the core library alone and sees include/rpcore.h alone.
$(BUILD)/rpcore: tests/tools/rpcore.c $(BUILD)/librpcore.a
	$(CC) $(filter-out -Isrc,$(CORE_CFLAGS)) $(DEPS) -o $@ $< $(BUILD)/librpcore.a $(RP_LDFLAGS)

# The tests' transcription of the RGB of limited-range YUV (tests/cli/video.sh and
# test_video_in, which runs it from beside its own directory).
$(BUILD)/yuv_rgb: tests/tools/yuv_rgb.c
	$(CC) $(CORE_CFLAGS) -o $@ $<
$(BUILD)/tests/test_video_in: $(BUILD)/yuv_rgb

# The frei0r plugin (rockpool-frei0r(7)): src/frei0r over the core, as a shared object that
# exports the f0r_* functions alone (src/frei0r/exports.map). The program's core objects
# are not position-independent: the plugin links a copy compiled with -fPIC under
# $(BUILD)/pic, and for the images a scene names (src/frei0r/images.c) the program's image
# loaders, so it links FFmpeg. Needs frei0r.h (Debian's frei0r-plugins-dev).
PLUGIN := $(BUILD)/frei0r/rockpool.so
PLUGIN_IMAGE_SRCS := src/input/image.c src/input/fit.c src/input/demux.c src/frei0r/images.c
PIC_CORE_OBJS := $(CORE_SRCS:src/%.c=$(BUILD)/pic/%.o) $(BUILD)/pic/frei0r/plugin.o
PIC_IMAGE_OBJS := $(PLUGIN_IMAGE_SRCS:src/%.c=$(BUILD)/pic/%.o)
PIC_OBJS := $(PIC_CORE_OBJS) $(PIC_IMAGE_OBJS)
$(PIC_CORE_OBJS): $(BUILD)/pic/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(CORE_CFLAGS) -fPIC -MMD -MP -c $< -o $@
$(PIC_IMAGE_OBJS): $(BUILD)/pic/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(RP_CFLAGS) $(INCS) -fPIC -MMD -MP -c $< -o $@

$(PLUGIN): $(PIC_OBJS) src/frei0r/exports.map
	@mkdir -p $(@D)
	$(CC) -shared -o $@ $(PIC_OBJS) -Wl,--version-script=src/frei0r/exports.map \
	    $(if $(SAN),,-Wl,-z,defs) $(RP_LDFLAGS) $(RP_LIBS)

# The plugin's test harness (tests/cli/frei0r.sh): loads the plugin with dlopen.
$(BUILD)/frei0r_harness: tests/tools/frei0r_harness.c $(PLUGIN)
	$(CC) $(CORE_CFLAGS) $(DEPS) -o $@ $< $(RP_LDFLAGS) -ldl -lm

# `make cross`: the core driver for aarch64 and s390x (big-endian), static, with Debian's
# cross compilers (scripts/install-deps installs them and qemu-user); tests/cross/run
# runs them under qemu and compares their frames with the native build's.
CROSS_ARCHS ?= aarch64 s390x
CROSS_BINS = $(CROSS_ARCHS:%=$(BUILD)/cross/rpcore-%)
CROSS_CFLAGS = -std=c11 -D_GNU_SOURCE -O2 $(WARN) -pthread $(INCS)
# cross_core ARCH: that architecture's core library and the driver linking it.
define cross_core
$(BUILD)/cross/$(1)/obj/%.o: src/%.c
	@mkdir -p $$(@D)
	$(1)-linux-gnu-gcc $(CROSS_CFLAGS) -MMD -MP -c $$< -o $$@

$(BUILD)/cross/$(1)/librpcore.a: $(CORE_SRCS:src/%.c=$(BUILD)/cross/$(1)/obj/%.o)
	$(1)-linux-gnu-ar rcs $$@ $$^

$(BUILD)/cross/rpcore-$(1): tests/tools/rpcore.c $(BUILD)/cross/$(1)/librpcore.a
	$(1)-linux-gnu-gcc $(CROSS_CFLAGS) -MMD -MP -MF $$(@D)/.$$(@F).d -static -o $$@ $$< $(BUILD)/cross/$(1)/librpcore.a
endef
$(foreach a,$(CROSS_ARCHS),$(eval $(call cross_core,$(a))))

cross: $(CROSS_BINS)

tests: $(BUILD)/rockpool $(MAN_PAGES) $(UNIT_BINS) $(BUILD)/fuzz_scene_replay \
       $(BUILD)/fuzz_image_replay $(BUILD)/rpcore $(BUILD)/examples/frames $(PLUGIN) \
       $(BUILD)/examples/core_frames $(BUILD)/frei0r_harness $(BUILD)/yuv_rgb web-files web-tests

# `make web`: the playground (README "In the browser"): build/web/ holds index.html, its
# scripts, rockpool.wasm (the core's sources, as librpcore.a's, and web/rpweb.c, built for
# wasm32 with Debian's clang, wasi-libc and compiler-rt: no threads; SIMD128 kernels for
# the step and look water in place of the x86 ones) and examples/ beside them.
# `make web-serve` serves it on 127.0.0.1 (scripts/web-serve).
WEB := $(BUILD)/web
WASM_CC ?= clang
WASM_CFLAGS = --target=wasm32-wasi --sysroot=/usr -std=c11 -D_GNU_SOURCE -D_WASI_EMULATED_SIGNAL \
              -DRP_WASM_SIMD -O2 $(WARN) -Iweb/wasm-include -include web/wasm-include/wasi_shim.h \
              $(INCS)
# The SIMD128 kernels (src/wasm/: the step, the viscosity pass, look water) alone are
# compiled for SIMD128: the rest stays scalar, as the native library's baseline does (and
# clang's vectorising of the plain loops for SIMD128 made the page slower).
$(WEB)/obj/wasm/%.o: WASM_CFLAGS += -msimd128
WASM_OBJS := $(CORE_SRCS:src/%.c=$(WEB)/obj/%.o) $(WEB)/obj/wasi_shim.o
WEB_FILES := $(addprefix $(WEB)/,index.html style.css app.js worker.js core.js md5.js)
WEB_EXAMPLES := $(wildcard examples/*.scene examples/*.png)
$(WEB)/obj/%.o: src/%.c web/wasm-include/wasi_shim.h
	@mkdir -p $(@D)
	$(WASM_CC) $(WASM_CFLAGS) -MMD -MP -c $< -o $@
$(WEB)/obj/rpweb.o $(WEB)/obj/wasi_shim.o: $(WEB)/obj/%.o: web/%.c web/wasm-include/wasi_shim.h
	@mkdir -p $(@D)
	$(WASM_CC) $(WASM_CFLAGS) -MMD -MP -c $< -o $@
$(WEB)/rockpool.wasm: $(WASM_OBJS) $(WEB)/obj/rpweb.o
	$(WASM_CC) --target=wasm32-wasi --sysroot=/usr -mexec-model=reactor -o $@ $^ \
	    -Wl,--strip-debug
# The core's unit tests that need no FFmpeg, built for wasm32 over the same objects, with
# tests/wasm/cmocka.h for cmocka (Debian has none for wasm32); tests/cli/web_units.sh runs
# them under Node's WASI (tests/tools/wasi-run.js).
WASM_TESTS := $(patsubst %,$(WEB)/tests/test_%.wasm,core scene motion obstacle presets render \
              light upscale water simd)
$(WASM_TESTS): $(WEB)/tests/%.wasm: tests/unit/%.c tests/wasm/cmocka.h $(WASM_OBJS)
	@mkdir -p $(@D)
	$(WASM_CC) $(WASM_CFLAGS) -Itests/wasm -Itests/unit $(DEPS) -o $@ $< $(WASM_OBJS)
$(WEB_FILES): $(WEB)/%: web/%
	@mkdir -p $(@D)
	cp $< $@
.PHONY: web web-files web-serve web-tests
web-tests: $(WASM_TESTS)
web:
	./scripts/install-deps --web
	$(MAKE) web-files
web-files: $(WEB)/rockpool.wasm $(WEB_FILES) $(WEB_EXAMPLES)
	@mkdir -p $(WEB)/examples
	cp $(WEB_EXAMPLES) $(WEB)/examples/
web-serve: web
	./scripts/web-serve $(WEB)

JOBS ?= $(shell nproc 2>/dev/null || echo 2)

# `make demo`: install what the program's build needs (scripts/install-deps --demo: no test
# tools), build the program alone in parallel, render the example with the built-in texture.
demo:
	./scripts/install-deps --demo
	$(MAKE) -j$(JOBS) $(BUILD)/rockpool
	$(BUILD)/rockpool -y examples/rain.scene -o demo.mp4
	@echo "rockpool: wrote demo.mp4"

# `make check`: set up, build once (in parallel), run every unit test, the CLI test scripts
# but tests/run-all's HEAVY ones (slow, and rarely broken by an everyday change: make
# check-all runs them) and the fuzz corpus replays against that build, JOBS at a time, a
# line for each as it finishes; ends with the failures again and 'N passed, N failed'. The
# suite a developer runs after every change.
check: deps
	$(MAKE) -j$(JOBS) tests
	BUILDS="$(BUILD)" JOBS=$(JOBS) ./tests/run-all

# `make check-all`: the whole matrix, what CI runs: the whole suite with gcc's ASan+UBSan,
# again with gcc but for the scripts run once (the farm's and the playground's), make
# check's scripts but those with clang (tests/run-all: ALL=1, once),
# builds at -O3 -march=native with gcc and clang (run there: the unit tests, the fuzz
# replays and one render compared with the first build's frames), the core driver
# cross-built (a failed cross build is a failed check) and compared under qemu with
# the native frames, valgrind on the core driver and two renders, and a real single-node
# Slurm (tests/cli/slurm.sh); with ALL=1, the scripts make check leaves out too.
OPT_CFLAGS := -O3 -march=native
check-all: deps
	$(MAKE) -j$(JOBS) tests
	$(MAKE) -j$(JOBS) BUILD=build-san SAN=1 tests
	$(MAKE) -j$(JOBS) BUILD=build-clang CC=clang tests
	$(MAKE) -j$(JOBS) BUILD=build-o3 CFLAGS="$(CFLAGS) $(OPT_CFLAGS)" tests
	$(MAKE) -j$(JOBS) BUILD=build-clang-o3 CC=clang CFLAGS="$(CFLAGS) $(OPT_CFLAGS)" tests
	-$(MAKE) -j$(JOBS) cross
	BUILDS="$(BUILD) build-san build-clang" UNIT_BUILDS="build-o3 build-clang-o3" \
	    JOBS=$(JOBS) ALL=1 CROSS=1 VALGRIND=1 SLURM_TESTS=1 ./tests/run-all

# `make fuzz`: libFuzzer (clang) on the scene parser, then on the image loader, for
# FUZZ_SECONDS each (default 60).
FUZZ_SECONDS ?= 60
fuzz:
	./scripts/install-deps --fuzz
	mkdir -p build/fuzz-corpus
	clang -g -O1 -fsanitize=fuzzer,address,undefined $(INCS) tests/fuzz/fuzz_scene.c $(CORE_SRCS) \
	    -o build/fuzz_scene
	build/fuzz_scene -max_total_time=$(FUZZ_SECONDS) -max_len=4096 build/fuzz-corpus \
	    tests/fuzz/corpus/scene
	mkdir -p build/fuzz-corpus-image
	clang -g -O1 -fsanitize=fuzzer,address,undefined $(INCS) $(PKG_CFLAGS) tests/fuzz/fuzz_image.c \
	    src/input/image.c src/input/demux.c src/base/common.c src/base/diag.c \
	    -o build/fuzz_image $(PKG_LIBS)
	build/fuzz_image -max_total_time=$(FUZZ_SECONDS) -max_len=8192 -timeout=10 \
	    -rss_limit_mb=2048 build/fuzz-corpus-image tests/fuzz/corpus/image

test: check-all

# `make gallery`: the README's stills and animation, rendered from examples/.
gallery:
	./scripts/install-deps --gallery
	$(MAKE) all
	./scripts/gallery

bench:
	./scripts/install-deps --bench
	$(MAKE) all
	./bench/run

# make splits a value at blanks: an install directory holding one (PREFIX="/opt/my tools")
# would be installed into, or removed from, each piece (tools/... relative to here).
# install, install-lib, install-frei0r and uninstall refuse it before touching anything.
INSTALL_DIR_VARS := DESTDIR PREFIX BINDIR MANDIR LIBDIR INCLUDEDIR PKGCONFIGDIR FREI0RDIR \
    KDENLIVEDIR SHOTCUTDIR
.PHONY: install-dirs-check
install-dirs-check:
	$(foreach v,$(INSTALL_DIR_VARS),$(if $(word 2,$($(v))),$(error $(v) '$($(v))' holds a \
	    blank, which make would split into separate paths: install somewhere without one)))

install: install-dirs-check $(BUILD)/rockpool $(MAN_PAGES) install-frei0r install-lib
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man5
	$(INSTALL_PROGRAM) $(BUILD)/rockpool $(DESTDIR)$(BINDIR)/rockpool
	$(INSTALL_DATA) $(BUILD)/man/rockpool.1 $(DESTDIR)$(MANDIR)/man1/rockpool.1
	$(INSTALL_DATA) $(BUILD)/man/rockpool-scene.5 $(DESTDIR)$(MANDIR)/man5/rockpool-scene.5
	$(INSTALL) -m 755 scripts/render-parallel $(DESTDIR)$(BINDIR)/render-parallel
	$(INSTALL) -m 755 scripts/rockpool-join $(DESTDIR)$(BINDIR)/rockpool-join

# The C library (part of `make install`): the static archives librockpool.a (the session
# API, rockpool(3)) and librpcore.a (the core alone, rpcore(3)), their headers, their
# pkg-config files and their man pages. A program links them with `pkg-config --cflags
# --libs rockpool` (or rpcore). The archives are static alone, so what they need is the
# program's to link whichever way it links: Requires and Libs, not their .private forms
# (which pkg-config gives only with --static, and which would then pull every library
# FFmpeg's own .pc files list privately, the -dev packages of a distribution's shared FFmpeg
# not installed): rockpool.pc requires FFmpeg's libraries, libdeflate, zlib and xxHash, and
# links libm and threads; rpcore.pc links threads alone. The .pc files are written here,
# for the PREFIX, LIBDIR and INCLUDEDIR of this install.
.PHONY: install-lib
PC_ROCKPOOL_REQUIRES := libavformat libavcodec libswscale libavutil libdeflate zlib libxxhash
define pc_file
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' \
	    'Name: $(1)' 'Description: $(2)' 'Version: $(3)' $(if $(4),'Requires: $(4)') \
	    'Libs: -L$${libdir} -l$(1) $(5)' 'Cflags: -I$${includedir}' \
	    >$(DESTDIR)$(PKGCONFIGDIR)/$(1).pc
	chmod 644 $(DESTDIR)$(PKGCONFIGDIR)/$(1).pc
endef
install-lib: install-dirs-check $(BUILD)/librockpool.a $(BUILD)/librpcore.a $(MAN_PAGES)
	$(INSTALL) -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR) $(DESTDIR)$(PKGCONFIGDIR) \
	    $(DESTDIR)$(MANDIR)/man3
	$(INSTALL_DATA) $(BUILD)/librockpool.a $(BUILD)/librpcore.a $(DESTDIR)$(LIBDIR)/
	$(INSTALL_DATA) include/rockpool.h include/rpcore.h $(DESTDIR)$(INCLUDEDIR)/
	$(INSTALL_DATA) $(BUILD)/man/rockpool.3 $(BUILD)/man/rpcore.3 $(DESTDIR)$(MANDIR)/man3/
	$(call pc_file,rockpool,rockpool water ripples: render sessions into files and memory,$(VERSION),$(PC_ROCKPOOL_REQUIRES),-lm -pthread)
	$(call pc_file,rpcore,rockpool core: water ripple frames in memory without files or FFmpeg,$(CORE_API_VERSION),,-pthread)

# The frei0r plugin where FFmpeg, MLT and GStreamer look, and its man page (part of
# `make install`); Kdenlive's effect description where Kdenlive reads effects, and
# Shotcut's filter panel under $(SHOTCUTDIR) (its own share/shotcut/qml/filters).
.PHONY: install-frei0r
FREI0RDIR ?= $(PREFIX)/lib/frei0r-1
KDENLIVEDIR ?= $(PREFIX)/share/kdenlive/effects
SHOTCUTDIR ?= $(PREFIX)/share/shotcut/qml/filters
install-frei0r: install-dirs-check $(PLUGIN) $(MAN_PAGES)
	$(INSTALL) -d $(DESTDIR)$(FREI0RDIR) $(DESTDIR)$(MANDIR)/man7
	$(INSTALL_PROGRAM) $(PLUGIN) $(DESTDIR)$(FREI0RDIR)/rockpool.so
	$(INSTALL_DATA) $(BUILD)/man/rockpool-frei0r.7 $(DESTDIR)$(MANDIR)/man7/rockpool-frei0r.7
	$(INSTALL) -d $(DESTDIR)$(KDENLIVEDIR) $(DESTDIR)$(SHOTCUTDIR)/rockpool
	$(INSTALL_DATA) src/frei0r/kdenlive/frei0r_rockpool.xml $(DESTDIR)$(KDENLIVEDIR)/
	$(INSTALL_DATA) src/frei0r/shotcut/rockpool/meta_frei0r.qml \
	    src/frei0r/shotcut/rockpool/ui_frei0r.qml $(DESTDIR)$(SHOTCUTDIR)/rockpool/

uninstall: install-dirs-check
	rm -f $(DESTDIR)$(BINDIR)/render-parallel $(DESTDIR)$(BINDIR)/rockpool-join
	rm -f $(DESTDIR)$(LIBDIR)/librockpool.a $(DESTDIR)$(LIBDIR)/librpcore.a \
	    $(DESTDIR)$(INCLUDEDIR)/rockpool.h $(DESTDIR)$(INCLUDEDIR)/rpcore.h \
	    $(DESTDIR)$(PKGCONFIGDIR)/rockpool.pc $(DESTDIR)$(PKGCONFIGDIR)/rpcore.pc \
	    $(DESTDIR)$(MANDIR)/man3/rockpool.3 $(DESTDIR)$(MANDIR)/man3/rpcore.3
	rm -f $(DESTDIR)$(BINDIR)/rockpool $(DESTDIR)$(MANDIR)/man1/rockpool.1 \
	    $(DESTDIR)$(MANDIR)/man5/rockpool-scene.5
	rm -f $(DESTDIR)$(FREI0RDIR)/rockpool.so $(DESTDIR)$(MANDIR)/man7/rockpool-frei0r.7
	rm -f $(DESTDIR)$(KDENLIVEDIR)/frei0r_rockpool.xml \
	    $(DESTDIR)$(SHOTCUTDIR)/rockpool/meta_frei0r.qml $(DESTDIR)$(SHOTCUTDIR)/rockpool/ui_frei0r.qml

# `make format`: the project's .clang-format over every C file; tests/cli/format.sh (in
# `make check`) fails on any deviation from it.
FORMAT_FILES = src/*/*.c src/*/*.h include/*.h tests/unit/*.c tests/unit/*.h tests/tools/*.c \
               examples/*.c web/*.c
format:
	clang-format -i $(FORMAT_FILES)

clean:
	rm -rf $(BUILD) build-san build-clang build-o3 build-clang-o3 demo.mp4

-include $(PIC_OBJS:.o=.d) $(CORE_OBJS:.o=.d) $(REST_OBJS:.o=.d) $(CLI_OBJS:.o=.d) \
    $(WASM_OBJS:.o=.d) $(WEB)/obj/rpweb.d $(call dotd,$(WASM_TESTS))
-include $(call dotd,$(UNIT_BINS) $(CROSS_BINS) $(addprefix $(BUILD)/,fuzz_scene_replay \
    fuzz_image_replay rpcore frei0r_harness examples/frames examples/core_frames))
-include $(foreach a,$(CROSS_ARCHS),$(wildcard $(BUILD)/cross/$(a)/obj/*/*.d))
