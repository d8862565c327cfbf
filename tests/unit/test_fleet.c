/* tests/unit/test_fleet.c: grouping nodes by stack (checks/fleet.h): the
 * majority by count, the tie rule (the stack read first), node names, a
 * name read twice, facts kept once per distinct stack, and the exit status
 * from what was found.  Stack ids are computed by manifest_finish() here;
 * the manifests built are small on purpose. */
#include "tests/unit/testlib.h"

#include "checks/fleet.h"

/* a manifest with HOST (NULL: none) and torch VERSION */
static void node(struct manifest *m, const char *host, const char *subject, const char *torch)
{
    manifest_init(m);
    m->subject = strdup(subject);
    assert_non_null(m->subject);
    if (host)
        assert_int_equal(factset_set(&m->facts, "host.hostname", host, NULL), 0);
    assert_int_equal(factset_set(&m->facts, "pip.torch", torch, NULL), 0);
    assert_int_equal(factset_set(&m->facts, "torch.backend", "xla", NULL), 0);
    assert_int_equal(manifest_finish(m), 0);
}

static void add(struct sp_fleet *f, const char *file, const char *host, const char *torch)
{
    struct manifest m;
    struct sp_error e = { 0 };
    node(&m, host, "host:/", torch);
    if (sp_fleet_add(f, file, &m, &e) != 0)
        fail_msg("%s: %s", file, e.msg);
    manifest_free(&m);
}

static void majority_by_count(void **state)
{
    struct sp_fleet f;
    struct sp_error e = { 0 };
    sp_fleet_init(&f);
    add(&f, "a.json", "a", "2.9.1");         /* read first, but alone */
    add(&f, "b.json", "b", "2.9.0");
    add(&f, "c.json", "c", "2.9.0");
    assert_int_equal(sp_fleet_finish(&f, &e), 0);
    assert_int_equal(f.nstacks, 2);
    assert_int_equal(f.majority, 1);
    assert_false(f.tie);
    assert_int_equal(f.odd_nodes, 1);
    const struct sp_diff *d = &f.stacks[0].diff;
    assert_int_equal(d->count, 1);
    assert_string_equal(d->items[0].key, "pip.torch");
    assert_string_equal(d->items[0].old_value, "2.9.0");     /* the majority's */
    assert_string_equal(d->items[0].new_value, "2.9.1");     /* the node's */
    assert_int_equal(d->items[0].change, SP_CHANGE_UPGRADED);
    assert_int_equal(f.stacks[1].diff.count, 0);
    assert_int_equal(sp_fleet_exit(&f), SP_EXIT_FAIL);
    sp_fleet_free(&f);
}

static void tie_goes_to_the_stack_read_first(void **state)
{
    struct sp_fleet f;
    struct sp_error e = { 0 };
    sp_fleet_init(&f);
    add(&f, "x.json", "x", "2.8.0");
    add(&f, "y.json", "y", "2.9.0");
    add(&f, "z.json", "z", "2.9.0");
    add(&f, "w.json", "w", "2.8.0");
    assert_int_equal(sp_fleet_finish(&f, &e), 0);
    assert_true(f.tie);
    assert_int_equal(f.majority, 0);
    assert_string_equal(f.nodes[f.stacks[1].nodes[0]].name, "y");
    assert_int_equal(f.stacks[1].diff.items[0].change, SP_CHANGE_UPGRADED);
    sp_fleet_free(&f);
}

static void one_stack_keeps_one_fact_set(void **state)
{
    struct sp_fleet f;
    struct sp_error e = { 0 };
    char file[32], host[32];
    sp_fleet_init(&f);
    for (int i = 0; i < 1000; i++) {
        snprintf(file, sizeof file, "n%d.json", i);
        snprintf(host, sizeof host, "n%d", i);
        add(&f, file, host, "2.9.0");
    }
    assert_int_equal(sp_fleet_finish(&f, &e), 0);
    assert_int_equal(f.nnodes, 1000);
    assert_int_equal(f.nstacks, 1);
    assert_int_equal(f.stacks[0].count, 1000);
    /* the first node's facts, its hostname included */
    assert_fact(&f.stacks[0].facts, "host.hostname", "n0");
    assert_int_equal(sp_fleet_exit(&f), SP_EXIT_OK);
    sp_fleet_free(&f);
}

static void names_and_duplicates(void **state)
{
    struct sp_fleet f;
    struct manifest m;
    struct sp_error e = { 0 };
    sp_fleet_init(&f);
    node(&m, NULL, "root:/srv/copy", "2.9.0");
    char *name = sp_fleet_node_name(&m, "dir/n1.json");
    assert_string_equal(name, "root:/srv/copy");
    free(name);
    free(m.subject);
    m.subject = strdup("");
    name = sp_fleet_node_name(&m, "dir/n1.json");
    assert_string_equal(name, "n1.json");
    free(name);
    manifest_free(&m);

    add(&f, "a.json", "same", "2.9.0");
    node(&m, "same", "host:/", "2.8.0");
    assert_int_equal(sp_fleet_add(&f, "b.json", &m, &e), -1);
    assert_int_equal(e.exit_code, SP_EXIT_INPUT);
    assert_string_equal(e.msg, "b.json: node 'same' was already read from a.json");
    manifest_free(&m);
    assert_int_equal(f.nnodes, 1);
    assert_int_equal(f.nstacks, 1);           /* unchanged on error */
    sp_fleet_free(&f);
}

static void exit_is_the_highest(void **state)
{
    struct sp_fleet f;
    struct sp_error e = { 0 };
    sp_fleet_init(&f);
    add(&f, "a.json", "a", "2.9.0");
    add(&f, "b.json", "b", "2.8.0");
    assert_int_equal(sp_fleet_finish(&f, &e), 0);
    assert_int_equal(sp_fleet_exit(&f), SP_EXIT_FAIL);
    assert_int_equal(sp_fleet_problem(&f, "c.json", "c", SP_EXIT_VERIFY, "c.json.intoto.json: bad", &e), 0);
    assert_int_equal(sp_fleet_exit(&f), SP_EXIT_VERIFY);
    assert_int_equal(sp_fleet_problem(&f, "d.json", NULL, SP_EXIT_INPUT, "d.json: bad", &e), 0);
    assert_int_equal(sp_fleet_exit(&f), SP_EXIT_INPUT);
    sp_fleet_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(majority_by_count),
        cmocka_unit_test(tie_goes_to_the_stack_read_first),
        cmocka_unit_test(one_stack_keeps_one_fact_set),
        cmocka_unit_test(names_and_duplicates),
        cmocka_unit_test(exit_is_the_highest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
