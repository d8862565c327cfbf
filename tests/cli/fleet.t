# tests/cli/fleet.t: stackprint fleet on the command line.  F = the fleet
# fixtures (tests/fixtures/fleet, README.md there): node1..node3 share one
# stack, node4 differs in five facts:
#   neuron.driver.version 2.30.2.0 -> 2.29.0.0   downgraded (dotted: 29 < 30)
#   pip.torch 2.9.0 -> 2.9.1                     upgraded (PEP 440)
#   torch.backend native -> xla                  changed (not a version)
#   pip.torchvision 0.24.0 -> absent             removed
#   env.NEURON_RT_VISIBLE_CORES absent -> 0-31   added
# listed in the stack reading order of checks/compare.h (driver, torch,
# environment).  Stack ids are those tests/restamp computed with hashlib.

### --help
$ stackprint fleet --help
>~ ^usage: stackprint fleet \[--format text\|json\|junit\]

### a manifest or folder is required
$ stackprint fleet
? 2
2> stackprint fleet: a manifest or a folder of manifests is required (see 'stackprint fleet --help')

### unknown format
$ stackprint fleet --format sarif tests/fixtures/fleet
? 2
2> stackprint fleet: unknown format 'sarif' (text, json or junit) (see 'stackprint fleet --help')

### standard input is not a fleet
$ stackprint fleet -
? 2
2>~ '-': fleet reads files, not standard input

### --strict without --policy
$ stackprint fleet --strict tests/fixtures/fleet
? 2
2>~ --strict needs --policy

### one stack: exit 0
$ stackprint fleet tests/fixtures/fleet/node1.json tests/fixtures/fleet/node2.json tests/fixtures/fleet/node3.json
> fleet: 3 nodes, 1 stack; majority sha256:c2e299c744998166fc5088e3ace6884bd56e1646b72cfdbb5e7ac34d8bbe6bc5 (3 of 3 nodes)
> stack sha256:c2e299c744998166fc5088e3ace6884bd56e1646b72cfdbb5e7ac34d8bbe6bc5: 3 nodes, majority
> result: one stack on all 3 nodes

### one drifted node: exit 1, its five differences with their changes
$ stackprint fleet tests/fixtures/fleet
? 1
> fleet: 4 nodes, 2 stacks; majority sha256:c2e299c744998166fc5088e3ace6884bd56e1646b72cfdbb5e7ac34d8bbe6bc5 (3 of 4 nodes)
> stack sha256:c2e299c744998166fc5088e3ace6884bd56e1646b72cfdbb5e7ac34d8bbe6bc5: 3 nodes, majority
> stack sha256:49d59f702f77330d689efde627fd023c8af700c21e561e1abfb1d93c38e5c6e7: 1 node
> odd node node4 (stack sha256:49d59f702f77330d689efde627fd023c8af700c21e561e1abfb1d93c38e5c6e7): 5 differences from the majority
>   neuron.driver.version: 2.30.2.0 -> 2.29.0.0 (downgraded)
>   pip.torch: 2.9.0 -> 2.9.1 (upgraded)
>   torch.backend: native -> xla (changed)
>   pip.torchvision: 0.24.0 -> (absent) (removed)
>   env.NEURON_RT_VISIBLE_CORES: (absent) -> 0-31 (added)
> result: drift: 1 of 4 nodes outside the majority stack

### a tie: the stack read first is the majority (node1 named first)
$ stackprint fleet tests/fixtures/fleet/node1.json tests/fixtures/fleet/node4.json
? 1
>~ ^fleet: 2 nodes, 2 stacks; majority sha256:c2e299.* \(1 of 2 nodes\), a tie: the stack read first is taken$
>~ ^odd node node4 
>~ ^  pip.torch: 2.9.0 -> 2.9.1 \(upgraded\)$

### a tie: the stack read first is the majority (node4 named first)
$ stackprint fleet tests/fixtures/fleet/node4.json tests/fixtures/fleet/node1.json
? 1
>~ ^fleet: 2 nodes, 2 stacks; majority sha256:49d59f.* \(1 of 2 nodes\), a tie
>~ ^odd node node1 
>~ ^  pip.torch: 2.9.1 -> 2.9.0 \(downgraded\)$
>~ ^  pip.torchvision: \(absent\) -> 0.24.0 \(added\)$

### the majority is by count, not by order: node4 first still loses 1 to 3
$ stackprint fleet tests/fixtures/fleet/node4.json tests/fixtures/fleet/node1.json tests/fixtures/fleet/node2.json tests/fixtures/fleet/node3.json
? 1
>~ ^fleet: 4 nodes, 2 stacks; majority sha256:c2e299.* \(3 of 4 nodes\)$
>~ ^odd node node4 

### node names: host.hostname, else the subject, else the file name
$ sed '/host.hostname/d' tests/fixtures/fleet/node4.json > $T/a.json
$ sed '/host.hostname/d; s|"subject": "host:/"|"subject": ""|' tests/fixtures/fleet/node4.json > $T/b.json
$ stackprint fleet tests/fixtures/fleet/node1.json tests/fixtures/fleet/node2.json $T/a.json
$ stackprint fleet tests/fixtures/fleet/node1.json tests/fixtures/fleet/node2.json $T/b.json
? 1
>~ ^odd node host:/ \(stack
>~ ^odd node b.json \(stack

### two manifests with the same hostname: exit 4, both files named
$ cp tests/fixtures/fleet/node2.json $T/again.json
$ stackprint fleet tests/fixtures/fleet $T/again.json
? 4
2>~ ^stackprint: .*/again.json: node 'node2' was already read from tests/fixtures/fleet/node2.json$
>! .

### a stack id that does not match the facts: exit 4
$ sed 's/"2.9.0"/"2.9.2"/' tests/fixtures/fleet/node1.json > $T/edited.json
$ stackprint fleet tests/fixtures/fleet/node2.json $T/edited.json
? 4
2>~ ^stackprint: .*/edited.json: stack_id does not match the facts \(edited after probing\?\)$

### --keep-going: the bad files are reported and left out, exit 4
$ cp tests/fixtures/fleet/node2.json $T/again.json
$ sed 's/"2.9.0"/"2.9.2"/' tests/fixtures/fleet/node1.json > $T/edited.json
$ stackprint fleet --keep-going tests/fixtures/fleet $T/again.json $T/edited.json $T/none.json
? 4
>~ ^fleet: 4 nodes, 2 stacks
>~ ^not read: .*/again.json: node 'node2' was already read from
>~ ^not read: .*/edited.json: stack_id does not match the facts
>~ ^not read: .*/none.json: No such file or directory$
>~ ^result: drift: 1 of 4 nodes outside the majority stack; 3 files not grouped$
2>~ none.json: No such file or directory$

### a folder with other files: they are left out, with a note
$ mkdir $T/d && cp tests/fixtures/fleet/node1.json tests/fixtures/fleet/node2.json $T/d/
$ echo notes > $T/d/README.txt && echo x > $T/d/.hidden.json && mkdir $T/d/sub.json
$ stackprint fleet $T/d
>~ ^result: one stack on all 2 nodes$
2>~ ^stackprint: .*/d: 3 entries left out \(not \*.json, \*.yaml or \*.yml, hidden, or folders\)$

### a folder with a JSON file that is not a manifest: exit 4, the file named
$ mkdir $T/d && cp tests/fixtures/fleet/node1.json $T/d/ && echo '{"results": []}' > $T/d/report.json
$ stackprint fleet $T/d
? 4
2>~ ^stackprint: .*/d/report.json: unknown key 'results' in a manifest \(expected schema, tool, created, subject, stack_id, facts, evidence, warnings\)$

### an empty folder: exit 4
$ mkdir $T/empty
$ stackprint fleet $T/empty
? 4
2>~ ^stackprint: .*/empty: no manifest files \(\*.json, \*.yaml or \*.yml\)$

### a folder of other files only: exit 4
$ mkdir $T/d && echo x > $T/d/slurm-1.out
$ stackprint fleet $T/d
? 4
2>~ ^stackprint: .*/d: no manifest files .*; the folder holds only other files$

### a FIFO is refused, never waited on (named, and in a folder)
$ mkfifo $T/pipe.json && mkdir $T/d && mkfifo $T/d/node.json
$ stackprint fleet $T/pipe.json
$ echo "exit $?"
$ stackprint fleet $T/d
? 4
> exit 4
2>~ ^stackprint: .*/pipe.json: not a regular file$
2>~ ^stackprint: .*/d/node.json: not a regular file$

### a folder that cannot be read: exit 4
$ stackprint fleet $T/none
? 4
2>~ ^stackprint: .*/none: No such file or directory$

### -o writes the report through the shared output helper
$ stackprint fleet -o $T/r.txt tests/fixtures/fleet
$ echo "exit $?"
$ tail -n 1 $T/r.txt
> exit 1
> result: drift: 1 of 4 nodes outside the majority stack

### -o may not be a manifest read
$ cp tests/fixtures/fleet/node1.json $T/n.json
$ stackprint fleet -o $T/n.json $T/n.json
? 2
2>~ output '.*/n.json' is the manifest

### -o may not be a manifest file inside a folder read
$ mkdir $T/d && cp tests/fixtures/fleet/node1.json $T/d/
$ stackprint fleet -f json -o $T/d/report.json $T/d
? 2
2>~ is inside the folder '.*/d'; the next run would read it as a manifest

### --policy: each stack checked once, the verdict per stack
$ stackprint fleet --policy tests/fixtures/policies tests/fixtures/fleet
? 1
>~ ^stack sha256:c2e299.*: 3 nodes, majority; [0-9]+ polic(y|ies), [0-9]+ requirements?: .*check (passed|failed)$
>~ ^stack sha256:49d59f.*: 1 node; [0-9]+ polic(y|ies), .*check (passed|failed)$
