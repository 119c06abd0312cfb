# The knob schema shared by the module and sldctl (src/schema): sldctl's
# validator at and past every bound, and the module's SLD_KNOB()s and
# sldctl's completion against the table (test_knobs_table).
SCHEMA_TEST_SRC := $(addprefix $(TOP)/tools/sldctl/,lib/knob.c lib/util.c)

UNIT_TESTS += $(B)/test_knobs_table

$(B)/test_knobs_table: test_knobs_table.c $(SCHEMA_TEST_SRC) $(SCHEMA_SRC) $(SCHEMA_HDR) src_dirs.h \
		$(wildcard $(TOP)/tools/sldctl/*.h $(TOP)/tools/sldctl/lib/*.h) $(wildcard $(TOP)/src/*.c $(TOP)/src/*/*.c $(TOP)/src/*/*/*.c) \
		$(TOP)/tools/sldctl/sldctl.bash-completion
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DSRC_DIR='"$(TOP)/src"' \
		-DCOMPLETION='"$(TOP)/tools/sldctl/sldctl.bash-completion"' -o $@ \
		test_knobs_table.c $(SCHEMA_TEST_SRC) $(SCHEMA_SRC) $(LDFLAGS) -lcmocka

# The list grammar (names.c), the table of known hypervisors
# (hypervisors.c), task-name patterns (glob.c) and the checker of path and
# cgroup entries (entries.c), how names from users are shown (escape.c),
# walked case by case.
UNIT_TESTS += $(B)/test_names $(B)/test_hypervisors $(B)/test_glob $(B)/test_entries \
	$(B)/test_escape

$(B)/test_names $(B)/test_hypervisors $(B)/test_glob $(B)/test_entries $(B)/test_escape: $(B)/test_%: test_%.c $(SCHEMA_SRC) $(SCHEMA_HDR) src_dirs.h \
		$(wildcard $(TOP)/src/*.c $(TOP)/src/*/*.c $(TOP)/src/*/*/*.c $(TOP)/tools/sldctl/*.c $(TOP)/tools/sldctl/lib/*.c)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -DSRC_DIR='"$(TOP)/src"' -DTOOLS_DIR='"$(TOP)/tools/sldctl"' -o $@ $< \
		$(SCHEMA_SRC) $(LDFLAGS) -lcmocka
