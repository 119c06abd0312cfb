# sldctl admin commands: the building blocks in process (test_sldctl_admin)
# and the real binary run against a fake tree, with table-driven bad
# input for every subcommand and --json parsed back with json-c
# (test_sldctl_run). Included by tests/unit/Makefile.
ADMIN_SRC := $(addprefix $(TOP)/tools/sldctl/,cli.c lib/knob.c lib/util.c lib/config.c \
	lib/conf_edit.c host.c lib/modchange.c)
ADMIN_HDRS := $(wildcard $(TOP)/tools/sldctl/*.h $(TOP)/tools/sldctl/lib/*.h) $(SCHEMA_HDR)
JSONC_CFLAGS := $(shell pkg-config --cflags json-c)
JSONC_LIBS := $(shell pkg-config --libs json-c)

UNIT_TESTS += $(B)/test_sldctl_admin $(B)/test_sldctl_run

$(B)/test_sldctl_admin: test_sldctl_admin.c $(ADMIN_SRC) $(SCHEMA_SRC) $(ADMIN_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -o $@ test_sldctl_admin.c $(ADMIN_SRC) $(SCHEMA_SRC) $(LDFLAGS) -lcmocka

# Runs the sanitizer build of the real binary on the test modules.
$(B)/test_sldctl_run: test_sldctl_run.c run_util.h $(SLDCTL_DATA_FILES) sldctl-san-bin
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(JSONC_CFLAGS) -DSLDCTL_BIN='"$(SLDCTL_SAN_BIN)"' \
		-DSLDCTL_DATA_DIR='"$(SLDCTL_DATA)"' -o $@ test_sldctl_run.c \
		$(LDFLAGS) $(JSONC_LIBS) -lcmocka
