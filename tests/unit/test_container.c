/* tests/unit/test_container.c: container markers.  /proc/self of the live
 * host cannot be staged, so the live cases use a temporary tree marked live
 * (root->live = 1) whose proc/self/cgroup and proc/self/mountinfo hold
 * lines in the shapes docker, podman, containerd and Kubernetes write. */
#include "tests/unit/sysprobe_fixture.h"

#define ID "4d9f1b0c2e3a5b6c7d8e9f00112233445566778899aabbccddeeff0011223344"
#define ID2 "99991b0c2e3a5b6c7d8e9f00112233445566778899aabbccddeeff0011223344"

static void fixtures(void **state)
{
    struct pt t;
    pt_fixture(&t, "container-bare");
    t.ctx.image_digest = "sha256:" ID;
    pt_run(&t, probe_container);
    assert_fact(&t.fs, "container.runtime", "docker");
    assert_fact(&t.fs, "container.image_digest", "sha256:" ID);
    assert_no_fact(&t.fs, "container.id");
    pt_close(&t);
    pt_fixture(&t, "trn2-native");
    pt_run(&t, probe_container);
    assert_int_equal(t.fs.count + t.fs.nwarnings, 0);
    pt_close(&t);
}

static void files(void **state)
{
    struct pt t;
    pt_tmp(&t, NULL);
    pt_put(&t, "run/.containerenv", "engine=\"podman-4.9.3\"\n");
    pt_run(&t, probe_container);
    assert_fact(&t.fs, "container.runtime", "podman");
    pt_put(&t, ".dockerenv", "");
    factset_free(&t.fs);
    factset_init(&t.fs);
    pt_run(&t, probe_container);
    assert_fact(&t.fs, "container.runtime", "podman");
    assert_warning(&t.fs, "both /.dockerenv and /run/.containerenv are present");
    /* a copied tree's proc is never read */
    pt_put(&t, "proc/self/cgroup", "0::/kubepods/pod1/" ID "\n");
    factset_free(&t.fs);
    factset_init(&t.fs);
    pt_run(&t, probe_container);
    assert_no_fact(&t.fs, "container.id");
    assert_fact(&t.fs, "container.runtime", "podman");
    pt_close(&t);
}

struct live_case {
    const char *cgroup, *mountinfo, *runtime, *id;
};

static void live(void **state)
{
    static const struct live_case cases[] = {
        { "12:memory:/docker/" ID "\n11:cpu:/docker/" ID "\n", "", "docker", ID },
        { "0::/system.slice/docker-" ID ".scope\n", "", "docker", ID },
        { "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod1a2b.slice/"
          "cri-containerd-" ID ".scope\n", "", "kubernetes", ID },
        { "0::/machine.slice/libpod-" ID ".scope/container\n", "", "podman", ID },
        /* cgroup v2 namespace: "0::/"; the id comes from the hostname bind mount */
        { "0::/\n", "605 600 259:1 /var/lib/docker/containers/" ID "/hostname /etc/hostname "
          "rw,relatime - ext4 /dev/nvme0n1p1 rw\n", "docker", ID },
        { "0::/\n", "605 600 0:54 /containers/storage/overlay-containers/" ID "/userdata/hostname "
          "/etc/hostname rw,nosuid - tmpfs tmpfs rw\n", "podman", ID },
        /* a host that merely runs docker is not a container */
        { "0::/user.slice/user-1000.slice/session-2.scope\n1:name=systemd:/system.slice/docker.service\n",
          "36 25 0:32 / /var/lib/docker/overlay2/" ID "/merged rw - overlay overlay rw\n"
          "37 25 0:33 / /run/docker/netns/default rw - nsfs nsfs rw\n", NULL, NULL },
        /* the machine this suite was written on: a 32-hex id is no container id */
        { "4:memory:/process_api/db89b2507ddfd92083db46350140d808\n0::/\n", "", NULL, NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        struct pt t;
        pt_tmp(&t, NULL);
        t.root->live = 1;
        pt_put(&t, "proc/self/cgroup", cases[i].cgroup);
        pt_put(&t, "proc/self/mountinfo", cases[i].mountinfo);
        pt_run(&t, probe_container);
        if (cases[i].runtime)
            assert_fact(&t.fs, "container.runtime", cases[i].runtime);
        else
            assert_no_fact(&t.fs, "container.runtime");
        if (cases[i].id)
            assert_fact(&t.fs, "container.id", cases[i].id);
        else
            assert_no_fact(&t.fs, "container.id");
        t.root->live = 0;
        pt_close(&t);
    }
}

static void live_env_and_conflicts(void **state)
{
    struct pt t;
    char *env[] = { "PATH=/bin", "KUBERNETES_SERVICE_HOST=10.100.0.1", NULL };
    pt_tmp(&t, NULL);
    t.root->live = 1;
    t.ctx.environ = env;
    pt_put(&t, ".dockerenv", "");
    pt_put(&t, "proc/self/cgroup", "1:cpu:/docker/" ID "\n2:memory:/docker/" ID2 "\n");
    pt_run(&t, probe_container);
    assert_fact(&t.fs, "container.runtime", "kubernetes");
    assert_non_null(strstr(factset_find(&t.fs, "container.runtime")->evidence,
                           "environment KUBERNETES_SERVICE_HOST"));
    assert_fact(&t.fs, "container.id", ID);
    assert_warning(&t.fs, "several container ids");
    t.root->live = 0;
    pt_close(&t);
}

static void bounds(void **state)
{
    /* /proc/self/cgroup past CGROUP_MAX (64 KiB): a warning, nothing read */
    struct pt t;
    pt_tmp(&t, NULL);
    t.root->live = 1;
    pt_sh(&t, "mkdir -p $D/proc/self && i=0; while [ $i -lt 1200 ]; do "
              "echo '12:memory:/docker/" ID "'; i=$((i + 1)); done > $D/proc/self/cgroup");
    pt_run(&t, probe_container);
    assert_warning(&t.fs, "container: /proc/self/cgroup: larger than the read limit");
    assert_no_fact(&t.fs, "container.id");
    t.root->live = 0;
    pt_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fixtures),
        cmocka_unit_test(files),
        cmocka_unit_test(live),
        cmocka_unit_test(live_env_and_conflicts),
        cmocka_unit_test(bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
