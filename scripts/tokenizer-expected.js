#!/usr/bin/env node
// Expected ids for the tokenizer golden tests, from Hugging Face tokenizers' Node binding (the same
// Rust library as the Python package; use the version the GPU host has). The GPU host's
// scripts/gpu/tokenizer-fixtures.py writes the same files with the Python binding, and also trains
// the hf-* tokenizers; this script serves machines without it (the CPU machine reaches npm):
//   mkdir -p /tmp/hf && (cd /tmp/hf && npm install tokenizers@0.23.2)
//   node scripts/tokenizer-expected.js --module /tmp/hf/node_modules/tokenizers ours-repo
// For each NAME, reads test/learn/fixtures/tokenizer/NAME/tokenizer.json and writes
// test/learn/fixtures/tokenizer/expected/NAME.json (format: test/learn/fixtures/tokenizer/README.md).
'use strict';
const fs = require('fs');
const path = require('path');

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(name);
  if (i < 0) return fallback;
  const value = args[i + 1];
  args.splice(i, 2);
  return value;
};
const modulePath = option('--module', 'tokenizers');
const root = path.resolve(option('--root', path.join(__dirname, '..')));
const fixtures = path.join(root, 'test/learn/fixtures/tokenizer');
if (args.length === 0) {
  console.error('usage: node scripts/tokenizer-expected.js [--module PATH] [--root DIR] NAME...');
  process.exit(2);
}
const { Tokenizer } = require(modulePath);
const version = require(path.join(path.dirname(require.resolve(modulePath)), 'package.json')).version;

// FNV-1a, 64 bits, as 16 hex digits: of a file's bytes, or of ids written "1,2,3".
function fnv1a(bytes) {
  let h = 0xcbf29ce484222325n;
  for (const b of bytes) h = BigInt.asUintN(64, (h ^ BigInt(b)) * 0x100000001b3n);
  return h.toString(16).padStart(16, '0');
}
const idsDigest = (ids) => fnv1a(Buffer.from(ids.join(','), 'utf8'));

// The repository's sources, as scripts/gpu/tokenizer-fixtures.py lists them.
const kExtensions = new Set(['.cu', '.cuh', '.c', '.h', '.cc', '.cpp', '.hpp', '.py']);
function repoSources() {
  const found = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isDirectory()) {
        if (entry.name.startsWith('.') || entry.name.startsWith('build') || entry.name === 'node_modules' ||
            entry.name === '__pycache__' || rel === 'test/learn/fixtures') continue;
        walk(rel);
      } else if (entry.isFile() && kExtensions.has(path.extname(entry.name)) &&
                 fs.statSync(path.join(root, rel)).size <= 512 * 1024) {
        found.push(rel);
      }
    }
  };
  walk('');
  return found.sort();
}

function applyVariant(base, variant) {
  const doc = JSON.parse(JSON.stringify(base));
  let next = Math.max(-1, ...Object.values(doc.model.vocab), ...doc.added_tokens.map((t) => t.id)) + 1;
  for (const token of variant.append_added_tokens || []) doc.added_tokens.push({ id: next++, ...token });
  for (const [dotted, value] of Object.entries(variant.set || {})) {
    const keys = dotted.split('.');
    let node = doc;
    for (const key of keys.slice(0, -1)) node = node[key];
    node[keys[keys.length - 1]] = JSON.parse(JSON.stringify(value));
  }
  const idOf = (content) => {
    const token = doc.added_tokens.find((t) => t.content === content);
    if (!token) throw new Error(`no added token ${content}`);
    return token.id;
  };
  const resolve = (node) => {
    if (!node) return;
    if (node.type === 'Sequence' && node.processors) node.processors.forEach(resolve);
    if (node.type === 'TemplateProcessing')
      for (const entry of Object.values(node.special_tokens))
        entry.ids = entry.ids.map((x) => (typeof x === 'string' ? idOf(x) : x));
  };
  resolve(doc.post_processor);
  return doc;
}

// JSON with one line per object member and each list of numbers or strings on one line, for
// readable diffs.
function compact(value, indent) {
  if (Array.isArray(value) && value.every((x) => typeof x === 'number' || typeof x === 'string'))
    return JSON.stringify(value);
  const inner = indent + ' ';
  if (Array.isArray(value))
    return value.length ? `[\n${value.map((x) => inner + compact(x, inner)).join(',\n')}\n${indent}]` : '[]';
  if (value && typeof value === 'object') {
    const entries = Object.entries(value);
    return entries.length
      ? `{\n${entries.map(([k, v]) => `${inner}${JSON.stringify(k)}: ${compact(v, inner)}`).join(',\n')}\n${indent}}`
      : '{}';
  }
  return JSON.stringify(value);
}

// The variants whose ids are also recorded for every source file of the repository.
const kRepoVariants = ['qwen2', 'gpt2', 'llama3'];
// The variants whose pre-tokens are recorded for every case.
const kPretokenVariants = ['qwen2', 'gpt2', 'gpt2-prefix-space', 'llama3', 'split-behaviors'];

async function main() {
  const cases = JSON.parse(fs.readFileSync(path.join(fixtures, 'cases.json'), 'utf8')).cases;
  const variants = JSON.parse(fs.readFileSync(path.join(fixtures, 'variants.json'), 'utf8')).variants;
  const textNames = fs.readdirSync(path.join(fixtures, 'texts')).sort();
  const sources = repoSources();
  fs.mkdirSync(path.join(fixtures, 'expected'), { recursive: true });
  for (const name of args) {
    const base = JSON.parse(fs.readFileSync(path.join(fixtures, name, 'tokenizer.json'), 'utf8'));
    const out = { schema: 'cudaperf-tokenizer-expected/1', producer: `tokenizers ${version} (node)`,
                  tokenizer: `${name}/tokenizer.json`, repo_files: {}, variants: {} };
    for (const rel of sources) out.repo_files[rel] = fnv1a(fs.readFileSync(path.join(root, rel)));
    for (const [variantName, variant] of Object.entries(variants)) {
      const tokenizer = Tokenizer.fromString(JSON.stringify(applyVariant(base, variant)));
      const hasTemplate = JSON.stringify(variant.set || {}).includes('TemplateProcessing');
      // Pre-token boundaries rarely show in the ids of a small vocabulary: they are compared too.
      const pretokenizes = kPretokenVariants.includes(variantName);
      const result = { cases: [], texts: {} };
      for (const text of cases) {
        const ids = (await tokenizer.encode(text)).getIds();
        const entry = { ids };
        // Decoded texts are stored where they differ from the input (or from the full decoding).
        const decoded = await tokenizer.decode(ids, false);
        const skipped = await tokenizer.decode(ids, true);
        if (decoded !== text) entry.decoded = decoded;
        if (skipped !== decoded) entry.decoded_skip_special = skipped;
        if (pretokenizes) entry.pretokens = tokenizer.getPreTokenizer().preTokenizeString(text).map((p) => p[0]);
        if (hasTemplate) entry.ids_plain = (await tokenizer.encode(text, null, { addSpecialTokens: false })).getIds();
        result.cases.push(entry);
      }
      for (const textName of textNames) {
        const text = fs.readFileSync(path.join(fixtures, 'texts', textName)).toString('utf8');
        const ids = (await tokenizer.encode(text)).getIds();
        result.texts[textName] = variantName === 'qwen2' ? { ids } : { count: ids.length, digest: idsDigest(ids) };
      }
      if (kRepoVariants.includes(variantName)) {
        result.repo = {};
        for (const rel of sources) {
          const ids = (await tokenizer.encode(fs.readFileSync(path.join(root, rel)).toString('utf8'))).getIds();
          result.repo[rel] = [ids.length, idsDigest(ids)];
        }
      }
      out.variants[variantName] = result;
      console.error(`${name} ${variantName}: ${cases.length} cases, ${textNames.length} texts` +
                    (result.repo ? `, ${sources.length} repository files` : ''));
    }
    fs.writeFileSync(path.join(fixtures, 'expected', `${name}.json`), compact(out, '') + '\n');
  }
}
main().catch((e) => { console.error(e); process.exit(1); });
