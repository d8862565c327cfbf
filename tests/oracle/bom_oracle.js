// tests/oracle/bom_oracle.js MODE ...: judges of stackprint's bill-of-materials
// exports, written by others (loaded from scripts/bootstrap-npm's folder,
// NODE_PATH):
//   cyclonedx FILE        the CycloneDX project's strict JSON validator, spec 1.6
//   spdx SCHEMA FILE      ajv against the SPDX 2.3 JSON schema
//   purls FILE            every purl of a CycloneDX FILE parsed by packageurl-js:
//                         prints one JSON object per line, {purl, fact,
//                         type, namespace, name, version, qualifiers}, for the
//                         test to compare with the manifest's facts.  Only its
//                         parser is the oracle: its writer leaves '+' unencoded,
//                         which the specification's own test data encodes as %2B
//                         (tests/fixtures/purl/, checked by test_purl.c)
// Exit 0 when valid, 1 with the validator's errors on stdout otherwise.
'use strict';
const fs = require('fs');
const [mode, a, b] = process.argv.slice(2);
if (mode === 'cyclonedx') {
  const CDX = require('@cyclonedx/cyclonedx-library');
  const v = new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot6);
  v.validate(fs.readFileSync(a, 'utf8')).then(err => {
    if (err === null) { console.log('valid'); process.exit(0); }
    console.log(JSON.stringify(err)); process.exit(1);
  }, e => { console.log(String(e)); process.exit(2); });
} else if (mode === 'spdx') {
  const Ajv = require('ajv');
  const validate = new Ajv({strict: false, allErrors: true}).compile(JSON.parse(fs.readFileSync(a, 'utf8')));
  if (validate(JSON.parse(fs.readFileSync(b, 'utf8')))) { console.log('valid'); process.exit(0); }
  console.log(JSON.stringify(validate.errors)); process.exit(1);
} else if (mode === 'purls') {
  const { PackageURL } = require('packageurl-js');
  for (const c of JSON.parse(fs.readFileSync(a, 'utf8')).components || []) {
    if (!c.purl) continue;
    const p = PackageURL.fromString(c.purl);
    const fact = (c.properties || []).find(x => x.name === 'stackprint:fact');
    console.log(JSON.stringify({purl: c.purl, fact: fact ? fact.value : null, type: p.type,
      namespace: p.namespace || null, name: p.name, version: p.version || null,
      qualifiers: p.qualifiers || {}}));
  }
} else {
  console.error('usage: bom_oracle.js cyclonedx FILE | spdx SCHEMA FILE | purls FILE');
  process.exit(2);
}
