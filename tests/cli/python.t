# tests/cli/python.t: stackprint probe's Python and torch facts through the
# command line, on the fixture roots (whose files were written to show these
# facts; see tests/unit/test_python.c for the details).

### trn2-native: /usr/local's interpreter, native backend, in JSON
$ $STACKPRINT probe --root tests/fixtures/roots/trn2-native --format json
>~ ^    "pip.torch-neuronx": "2\.11\.3\.0\.19138\+4dee388\.dev",$
>~ ^    "python.path": "/usr/local/bin/python3",$
>~ ^    "python.version": "3\.11\.13",$
>~ ^    "python.env.system.version": "3\.10\.12",$
>~ ^    "torch.backend": "native",$
>~ ^    "torch.build.cuda": "none",$

### trn1-xla: the XLA path, in YAML, with the DLAMI venv as another environment
$ $STACKPRINT probe --root tests/fixtures/roots/trn1-xla
>~ ^  torch.backend: "xla"$
>~ ^  pip.torch-xla: "2\.8\.0"$
>~ ^  python.env.opt_aws_neuronx_venv_pytorch_2_8.pip.torch-neuronx: "2\.8\.0\.2\.10\.16998"$
>~ ^  python.env.opt_aws_neuronx_venv_pytorch_2_8.version: "3\.10\.12"$
>~ ^  torch.backend: ".*xla markers: Requires-Dist torch-xla

### --python picks the venv of trn3, whose version is in pyvenv.cfg
$ $STACKPRINT probe --root tests/fixtures/roots/trn3 --python /opt/aws_neuronx_venv_pytorch_2_12/bin/python3
>~ ^  python.path: "/opt/aws_neuronx_venv_pytorch_2_12/bin/python3"$
>~ ^  python.prefix: "/opt/aws_neuronx_venv_pytorch_2_12"$
>~ ^  python.version: "3\.12\.3"$
>~ ^  torch.backend: "native"$
>~ ^  python.env.system.path: "/usr/bin/python3"$
>! ^  python.env.opt_aws_neuronx_venv

### --python that is not in the root: a warning, no Python facts, exit 0
$ $STACKPRINT probe --root tests/fixtures/roots/trn3 --python /usr/bin/python9
>~ python: /usr/bin/python9: no such file
>! ^  python\.path:
>! ^  pip\.
>! ^  torch\.

### the legacy Inf1 family and the ambiguous one, with its warning
$ $STACKPRINT probe --root tests/fixtures/roots/inf1-legacy | sed -n '/^facts:/,/^evidence:/p' | grep -E '^  (torch.backend|pip.torch-neuron|pip.sympy):'
$ $STACKPRINT probe --root tests/fixtures/roots/ambiguous | grep -E '^  torch.backend: "ambiguous"|has both native and XLA markers' | cut -c1-60
>   pip.sympy: "1.9"
>   pip.torch-neuron: "1.13.1.2.11.13.0"
>   torch.backend: "neuron-inf1"
>   torch.backend: "ambiguous"
> - "torch.backend: /usr/local/lib/python3.11/site-packages/to

### twice in a row: byte-identical manifests for every root
$ for r in tests/fixtures/roots/*/; do SOURCE_DATE_EPOCH=1 $STACKPRINT probe --root $r > $T/a; SOURCE_DATE_EPOCH=1 $STACKPRINT probe --root $r > $T/b; cmp -s $T/a $T/b || echo "differs: $r"; done; echo done
> done

### --python without its value is a usage error
$ $STACKPRINT probe --python
? 2
2>~ ^stackprint probe: option '--python' needs a value

### a relative --python is a usage error: it names no place in the root
$ $STACKPRINT probe --root tests/fixtures/roots/trn3 --python bin/python3
? 2
2>~ ^stackprint probe: --python 'bin/python3' is not an absolute path
>! python

### --python /bin/sh on the live host: not a Python 3 interpreter; a warning, no other Python's facts
$ $STACKPRINT probe --python /bin/sh
>~ python: /bin/sh: not a Python 3 interpreter
>! ^  python\.(path|prefix|version):
>! ^  pip\.
>! ^  torch\.

### a Python 2 interpreter on a copied tree: a warning, no pip.* facts
$ mkdir -p $T/r/opt/py2/bin $T/r/opt/py2/lib/python2.7/site-packages/six-1.15.0.dist-info $T/r/usr/lib/python3.11 && printf 'Name: six\nVersion: 1.15.0\n\n' > $T/r/opt/py2/lib/python2.7/site-packages/six-1.15.0.dist-info/METADATA && touch $T/r/opt/py2/lib/python2.7/os.py $T/r/usr/lib/python3.11/os.py && printf '\177ELF\000%s\000' 2.7.18 > $T/r/opt/py2/bin/python2.7 && ln -s python2.7 $T/r/opt/py2/bin/python2 && $STACKPRINT probe --root $T/r --python /opt/py2/bin/python2
>~ python: /opt/py2/bin/python2: a Python 2 interpreter .*Python 2 is not supported
>! ^  pip\.
>! ^  python\.path:
