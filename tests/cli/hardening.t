# tests/cli/hardening.t: inputs that once steered stackprint (an injective
# stack id, DSSE multi-signature semantics, never blocking, complete fact
# sets).  Fixtures under tests/fixtures/hostile/ (README.md there says each
# fault and the right result).

### a v1 manifest is refused with one line saying how to renew it
$ stackprint check --policy tests/fixtures/hostile/stackid-collision/policy.yaml tests/fixtures/hostile/stackid-collision/a.yaml
? 4
2>~ ^stackprint: tests/fixtures/hostile/stackid-collision/a.yaml:1:9: stackprint/manifest/v1 has the old stack_id definition; probe again, or rewrite a test fixture with the source tree's tests/restamp tests/fixtures/hostile/stackid-collision/a.yaml$

### the two fact sets that shared a v1 stack id get distinct ids (tests/restamp's hashlib as the oracle), and stackprint reads both
$ cp tests/fixtures/hostile/stackid-collision/a.yaml tests/fixtures/hostile/stackid-collision/b.yaml $T/
$ tests/restamp $T/a.yaml $T/b.yaml
$ a=$(grep '^stack_id' $T/a.yaml); b=$(grep '^stack_id' $T/b.yaml); [ "$a" != "$b" ] && echo distinct
$ stackprint check --policy tests/fixtures/hostile/stackid-collision/policy.yaml $T/a.yaml >/dev/null; echo "a: $?"
$ stackprint check --policy tests/fixtures/hostile/stackid-collision/policy.yaml $T/b.yaml >/dev/null; echo "b: $?"
> distinct
> a: 1
> b: 0

### a fact key outside the alphabet is refused, even with a matching stack id
$ printf 'schema: "stackprint/manifest/v2"\ntool: "t"\ncreated: "2026-11-29T08:00:00Z"\nsubject: "s"\nstack_id: "sha256:0"\nfacts:\n  "pip.torch=2.3\\npython.version": "3.10"\n' > $T/k.yaml
$ tests/restamp $T/k.yaml
$ stackprint check --policy tests/fixtures/hostile/stackid-collision/policy.yaml $T/k.yaml
? 4
2>~ ^stackprint: .*/k.yaml:7:3: fact key 'pip.torch=2.3\?python.version' is not 1 to 256 bytes of a-z A-Z 0-9 \. _ \+ : - starting with a-z$
