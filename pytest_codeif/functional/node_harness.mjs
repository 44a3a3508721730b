// The worker of a Node call-case run: imports the code under evaluation and makes one
// call per request from its supervisor (`node_harness.py`, which holds the result
// channel; this process never does). Node's standard library only.
//
// Usage: node [flags] node_harness.mjs REQUEST_FD REQUESTS_FD REPLIES_FD. REQUEST_FD is a
// memory file holding the run's request (entry file, cases), read and closed before the
// code is imported; then one JSON object a line: requests in, replies out, as the Python
// worker's `supervisor.Link` speaks.
//
// Everything this file uses after the code is loaded was captured before it: the code may
// patch JSON, Object, Array, Promise, fs or anything global; the harness keeps the
// originals. Replies are built by string concatenation of primitives only (no toJSON,
// iterator or prototype lookup of the code's reach). What crosses is the code's answer (a
// value, what it threw), never a verdict: the host compares.

import fs from "node:fs";
import Module from "node:module";
import { pathToFileURL } from "node:url";
import util from "node:util";

// -- captured before any of the code runs ---------------------------------------------
const ReflectApply = Reflect.apply;
const ReflectDeleteProperty = Reflect.deleteProperty;
const uncurry = (fn) => (self, ...args) => ReflectApply(fn, self, args);
const ObjectGetPrototypeOf = Object.getPrototypeOf;
const ObjectGetOwnPropertyDescriptor = Object.getOwnPropertyDescriptor;
const ObjectKeys = Object.keys;
const ObjectHasOwn = Object.hasOwn;
const ObjectPrototype = Object.prototype;
const ArrayIsArray = Array.isArray;
const ArrayPrototype = Array.prototype;
const MapPrototype = Map.prototype;
const SetPrototype = Set.prototype;
const DatePrototype = Date.prototype;
const MapForEach = uncurry(Map.prototype.forEach);
const SetForEach = uncurry(Set.prototype.forEach);
const DateGetTime = uncurry(Date.prototype.getTime);
const DateToISOString = uncurry(Date.prototype.toISOString);
const StringIndexOf = uncurry(String.prototype.indexOf);
const StringSlice = uncurry(String.prototype.slice);
const SymbolToString = uncurry(Symbol.prototype.toString);
const RegExpExec = uncurry(RegExp.prototype.exec);
const BigIntToString = uncurry(BigInt.prototype.toString);
const TypedArrayPrototype = ObjectGetPrototypeOf(Uint8Array.prototype);
const TypedArrayLength = uncurry(ObjectGetOwnPropertyDescriptor(TypedArrayPrototype, "length").get);
const TYPED_ARRAY_PROTOTYPES = new Set([
  Int8Array.prototype, Uint8Array.prototype, Uint8ClampedArray.prototype,
  Int16Array.prototype, Uint16Array.prototype, Int32Array.prototype,
  Uint32Array.prototype, Float32Array.prototype, Float64Array.prototype,
  BigInt64Array.prototype, BigUint64Array.prototype, Buffer.prototype,
]);
const SetHas = uncurry(Set.prototype.has);
const SetAdd = uncurry(Set.prototype.add);
const MapGet = uncurry(Map.prototype.get);
const ReferenceErrorOf = ReferenceError;
const JSONStringify = JSON.stringify;
const JSONParse = JSON.parse;
const NumberIsSafeInteger = Number.isSafeInteger;
const NumberIsNaN = Number.isNaN;
const StringOf = String;
const SymbolFor = Symbol.for;
const theGlobal = globalThis;
const globalEval = theGlobal.eval;
const isProxy = util.types.isProxy;
const isPromise = util.types.isPromise;
const readSync = fs.readSync;
const writeSync = fs.writeSync;
const closeSync = fs.closeSync;
const readFileSync = fs.readFileSync;
const decoder = new TextDecoder();
const Decode = uncurry(TextDecoder.prototype.decode);
const encoder = new TextEncoder();
const Encode = uncurry(TextEncoder.prototype.encode);
const setIntervalOf = setInterval;
const clearIntervalOf = clearInterval;
const processOn = uncurry(process.on);
const reallyExit = process.reallyExit;
const theProcess = process;
const createRequire = Module.createRequire;

// The built-in error classes, named bare only when the thrown object's prototype chain
// holds the built-in itself (a class of the code called `TypeError` is not TypeError).
const BUILTIN_ERRORS = new Map();
for (const cls of [Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError,
  URIError, AggregateError]) {
  BUILTIN_ERRORS.set(cls.prototype, cls.name);
}

const MAX_DEPTH = 50;
const MAX_ITEMS = 100_000;
// The longest encoded value sent (the supervisor reads replies of up to 8 MiB).
const MAX_CHARS = 6 * 1024 * 1024;
const MAX_MESSAGE = 500;
const MAX_NAMES = 64;
// Decimal digits of a BigInt sent (the host's int parsing stops at 4300).
const MAX_DIGITS = 4000;
// Names a call expression may not bind as parameters (reserved in strict code).
const RESERVED = new Set(("arguments await break case catch class const continue debugger " +
  "default delete do else enum eval export extends false finally for function if " +
  "implements import in instanceof interface let new null package private protected " +
  "public return static super switch this throw true try typeof var void while with " +
  "yield undefined NaN Infinity").split(" "));
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const MISSING = /Cannot find (?:package|module) '([^']{1,200})'/;
const SCOPE_HOOK = SymbolFor("codeif.scope");

// Thrown (and compared by identity) when a value is too large or deep to send.
const TOO_BIG = Object.freeze({});

// -- the request and the pipes ----------------------------------------------------------
const [requestFd, requestsFd, repliesFd] = process.argv.slice(2).map(Number);
const request = JSONParse(readFileSync(requestFd, "utf8"));
closeSync(requestFd);
const cases = request.cases.map((c) => ({
  expression: typeof c.expression === "string" ? c.expression : null,
  function: typeof c.function === "string" ? c.function : null,
  args: Array.isArray(c.args) ? c.args : [],
}));
const caseCount = cases.length;
// Classes of the code are named after the entry module (`solution.ValidationError`).
const MODULE = typeof request.module === "string" ? request.module : "code";
const ENTRY = request.entry;

// A view made afresh per read over our own buffer: `subarray` would ask the (patchable)
// constructor of the view for the new one.
const Uint8ArrayOf = Uint8Array;
const CHUNK = 4096;
const raw = new ArrayBuffer(CHUNK);
const chunk = new Uint8ArrayOf(raw);
let pending = "";

/** The next request, parsed (null: the supervisor closed the pipe). */
function receive() {
  for (;;) {
    const end = StringIndexOf(pending, "\n");
    if (end >= 0) {
      const line = StringSlice(pending, 0, end);
      pending = StringSlice(pending, end + 1);
      return JSONParse(line);
    }
    const count = readSync(requestsFd, chunk, 0, CHUNK, null);
    if (count === 0) return null;
    pending = pending + Decode(decoder, new Uint8ArrayOf(raw, 0, count));
  }
}

/** Write one reply line (already JSON text), whole. */
function send(text) {
  const bytes = Encode(encoder, text + "\n");
  const length = TypedArrayLength(bytes);
  let offset = 0;
  while (offset < length) {
    offset += writeSync(repliesFd, bytes, offset, length - offset);
  }
}

function exit(code) {
  ReflectApply(reallyExit, theProcess, [code]);
}

// -- plain data -------------------------------------------------------------------------
function str(text) {
  return JSONStringify(text); // a primitive string: no toJSON is looked up
}

/** The tagged JSON text of `value` (see `functional/plain.py`); throws TOO_BIG. */
function encode(value, depth, budget) {
  budget.items -= 1;
  if (budget.items < 0 || depth > MAX_DEPTH) throw TOO_BIG;
  const kind = typeof value;
  if (value === null || value === undefined) return "null";
  if (kind === "boolean") return value ? "true" : "false";
  if (kind === "string") {
    budget.chars -= value.length;
    if (budget.chars < 0) throw TOO_BIG;
    return str(value);
  }
  if (kind === "number") return number(value);
  if (kind === "bigint") {
    const digits = BigIntToString(value);
    if (digits.length > MAX_DIGITS) return unsupported("a BigInt too large to compare");
    return digits;
  }
  if (kind !== "object") return unsupported(kind === "function" ? "a function" : "a " + kind);
  if (isProxy(value)) return unsupported("a Proxy");
  const proto = ObjectGetPrototypeOf(value);
  if (proto === ArrayPrototype && ArrayIsArray(value)) {
    let out = "[";
    const length = value.length;
    for (let i = 0; i < length; i++) {
      if (i > 0) out = out + ",";
      // A hole reads as null: its lookup would reach the (patchable) prototype.
      out = out + (ObjectHasOwn(value, i) ? encode(value[i], depth + 1, budget) : "null");
    }
    return out + "]";
  }
  if (SetHas(TYPED_ARRAY_PROTOTYPES, proto)) {
    let out = "[";
    const length = TypedArrayLength(value);
    budget.items -= length;
    if (budget.items < 0) throw TOO_BIG;
    for (let i = 0; i < length; i++) {
      const item = value[i];
      out = out + (i > 0 ? "," : "") + (typeof item === "bigint" ? BigIntToString(item) : number(item));
    }
    return out + "]";
  }
  if (proto === MapPrototype) {
    let out = '{"$dict":[';
    let first = true;
    MapForEach(value, (v, k) => {
      out = out + (first ? "[" : ",[") + encode(k, depth + 1, budget) + "," +
        encode(v, depth + 1, budget) + "]";
      first = false;
    });
    return out + "]}";
  }
  if (proto === SetPrototype) {
    let out = '{"$set":[';
    let first = true;
    SetForEach(value, (v) => {
      out = out + (first ? "" : ",") + encode(v, depth + 1, budget);
      first = false;
    });
    return out + "]}";
  }
  if (proto === DatePrototype) {
    if (NumberIsNaN(DateGetTime(value))) return unsupported("an invalid Date");
    return str(DateToISOString(value));
  }
  if (proto === ObjectPrototype || proto === null) {
    let out = '{"$dict":[';
    const keys = ObjectKeys(value);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      const field = ObjectGetOwnPropertyDescriptor(value, key);
      if (field === undefined) continue;
      // A getter is read as JSON.stringify would read it: it is the code's answer.
      const item = ObjectHasOwn(field, "get") ? ReflectApply(field.get, value, []) : field.value;
      out = out + (i > 0 ? ",[" : "[") + str(key) + "," + encode(item, depth + 1, budget) + "]";
    }
    return out + "]}";
  }
  return unsupported("an instance of " + className(proto));
}

function number(value) {
  if (NumberIsNaN(value)) return '{"$float":"nan"}';
  if (value === Infinity) return '{"$float":"inf"}';
  if (value === -Infinity) return '{"$float":"-inf"}';
  if (NumberIsSafeInteger(value)) return StringOf(value === 0 ? 0 : value);
  const text = JSONStringify(value);
  // An integral double beyond 2**53 is a float (JSON would read it back as an int).
  return StringIndexOf(text, ".") >= 0 || StringIndexOf(text, "e") >= 0 ? text : text + ".0";
}

function unsupported(what) {
  return '{"$unsupported":' + str(StringSlice(what, 0, 200)) + "}";
}

/** The name of the class whose prototype is `proto`, read without running code. */
function className(proto) {
  try {
    if (proto === null || isProxy(proto)) return "(a Proxy)";
    const ctor = ObjectGetOwnPropertyDescriptor(proto, "constructor");
    const fn = ctor !== undefined && ObjectHasOwn(ctor, "value") ? ctor.value : undefined;
    if (typeof fn !== "function" || isProxy(fn)) return "(anonymous class)";
    const name = ObjectGetOwnPropertyDescriptor(fn, "name");
    const text = name !== undefined && ObjectHasOwn(name, "value") ? name.value : undefined;
    return typeof text === "string" && text !== "" ? StringSlice(text, 0, 200) : "(anonymous class)";
  } catch {
    return "(anonymous class)";
  }
}

// -- what was thrown ----------------------------------------------------------------------
/** The thrown value's class and those along its prototype chain, by identity: a built-in
 * error by its bare name only when it is the built-in itself, any other class as
 * `module.Name`; a value that is no object as `(a thrown string)` (no `raises:` names it). */
function thrownNames(thrown) {
  const kind = typeof thrown;
  if (thrown === null || (kind !== "object" && kind !== "function")) {
    return ["(a thrown " + (thrown === null ? "null" : kind) + ")"];
  }
  if (isProxy(thrown)) return ["(a thrown Proxy)"];
  const names = [];
  let proto = ObjectGetPrototypeOf(thrown);
  while (proto !== null && proto !== ObjectPrototype && names.length < MAX_NAMES) {
    if (isProxy(proto)) {
      names[names.length] = "(a Proxy)";
      break;
    }
    const builtin = MapGet(BUILTIN_ERRORS, proto);
    names[names.length] = builtin !== undefined ? builtin : MODULE + "." + className(proto);
    proto = ObjectGetPrototypeOf(proto);
  }
  return names.length ? names : ["(a thrown object)"];
}

function thrownMessage(thrown) {
  try {
    const kind = typeof thrown;
    let text;
    if (kind === "string") text = thrown;
    else if (kind === "number" || kind === "boolean" || kind === "bigint" || kind === "undefined") {
      text = StringOf(thrown);
    } else if (kind === "symbol") text = SymbolToString(thrown);
    else if (thrown === null) text = "null";
    else if (isProxy(thrown)) text = "(message unavailable)";
    else {
      const field = ObjectGetOwnPropertyDescriptor(thrown, "message");
      const value = field !== undefined && ObjectHasOwn(field, "value") ? field.value : undefined;
      text = typeof value === "string" ? value : "";
    }
    return StringSlice(text, 0, MAX_MESSAGE);
  } catch {
    return "(message unavailable)";
  }
}

function ownString(thrown, key) {
  try {
    if (thrown === null || typeof thrown !== "object" || isProxy(thrown)) return undefined;
    const field = ObjectGetOwnPropertyDescriptor(thrown, key);
    const value = field !== undefined && ObjectHasOwn(field, "value") ? field.value : undefined;
    return typeof value === "string" ? value : undefined;
  } catch {
    return undefined;
  }
}

function names(list) {
  let out = "[";
  for (let i = 0; i < list.length; i++) out = out + (i > 0 ? "," : "") + str(list[i]);
  return out + "]";
}

function raisedReply(thrown) {
  return '{"raised":' + names(thrownNames(thrown)) + ',"message":' + str(thrownMessage(thrown)) + "}";
}

// -- loading the code ---------------------------------------------------------------------
const JS_SUFFIX = /^(\.{1,2}\/.*)\.(?:m|c)?jsx?$/;

/** TypeScript and JSX files (transpiled to CommonJS by the host) load as JavaScript, and
 * `./x.js` finds `x.ts` when only that exists (TypeScript's own import style). */
function registerTranspiled(extensions) {
  const compile = (module, filename) => module._compile(readFileSync(filename, "utf8"), filename);
  for (const extension of extensions) Module._extensions[extension] = compile;
  if (!extensions.length) return;
  const resolveFilename = Module._resolveFilename;
  Module._resolveFilename = function (...args) {
    try {
      return ReflectApply(resolveFilename, this, args);
    } catch (error) {
      const specifier = args[0];
      const found = typeof specifier === "string" ? RegExpExec(JS_SUFFIX, specifier) : null;
      if (found === null) throw error;
      for (let i = 0; i < extensions.length; i++) {
        args[0] = found[1] + extensions[i];
        try {
          return ReflectApply(resolveFilename, this, args);
        } catch {
          // the next extension
        }
      }
      throw error;
    }
  };
}

let scopeEval = null;

/** The entry module: its named exports (`named`), its default export or CommonJS
 * `module.exports` (`fallback`), and whether `named` is `module.exports` itself. */
async function load() {
  registerTranspiled(request.extensions);
  // Taken while the entry loads only (the code may keep the hook and call it later).
  let loading = true;
  theGlobal[SCOPE_HOOK] = (evaluate) => {
    if (loading) scopeEval = typeof evaluate === "function" ? evaluate : null;
  };
  try {
    if (request.require) {
      const exported = createRequire(ENTRY)(ENTRY);
      const esModule = isContainer(exported) && exported.__esModule === true;
      const fallback = esModule ? exported.default : exported;
      return { __proto__: null, named: exported, fallback, own: true };
    }
    const namespace = await import(pathToFileURL(ENTRY).href);
    return { __proto__: null, named: namespace, fallback: namespace.default, own: false };
  } finally {
    loading = false;
    ReflectDeleteProperty(theGlobal, SCOPE_HOOK); // false, not a throw, if the code pinned it
  }
}

function importFailure(thrown) {
  const found = thrownNames(thrown);
  let out = '{"import_error":' + str(found[0]) + ',"message":' + str(thrownMessage(thrown));
  const code = ownString(thrown, "code");
  if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
    const missing = RegExpExec(MISSING, thrownMessage(thrown));
    if (missing !== null) out = out + ',"missing":' + str(missing[1]);
  }
  return out + "}";
}

// -- one case -----------------------------------------------------------------------------
function isContainer(value) {
  return value !== null && (typeof value === "object" || typeof value === "function");
}

function bindable(name) {
  return RegExpExec(IDENTIFIER, name) !== null && !SetHas(RESERVED, name);
}

/** The function `name` (`fn`) and the `this` it is called with (`self`): a named export;
 * a property of the default export (CommonJS `module.exports`, called on it); the default
 * export itself when it is a function of that name; else a top-level binding of the entry
 * module (a function it declares without exporting it). */
function resolve(loaded, name) {
  const named = loaded.named;
  const fallback = loaded.fallback;
  const onFallback = isContainer(fallback) && ObjectHasOwn(fallback, name);
  if (name !== "default" && isContainer(named) && ObjectHasOwn(named, name)) {
    const fn = named[name];
    // CommonJS through import(): the same function on module.exports is called on it.
    const self = loaded.own ? named : onFallback && fallback[name] === fn ? fallback : undefined;
    return { fn, self };
  }
  if (onFallback) return { fn: fallback[name], self: fallback };
  if (typeof fallback === "function" && !isProxy(fallback)) {
    const own = ObjectGetOwnPropertyDescriptor(fallback, "name");
    if (own !== undefined && own.value === name) return { fn: fallback, self: undefined };
  }
  if (scopeEval !== null && bindable(name)) {
    const found = scopeEval("typeof " + name + ' === "undefined" ? undefined : ' + name);
    if (found !== undefined) return { fn: found, self: undefined };
  }
  throw new ReferenceErrorOf(
    name + " is not defined by the module (exported, or declared at its top level)",
  );
}

/** The names a call expression sees beyond the entry module's own top-level bindings:
 * its exports, and the default export's properties (`module.exports.add` as `add`). */
function exportedNames(loaded) {
  const seen = new Set();
  const bound = { keys: [], values: [] };
  const add = (key, value) => {
    if (typeof key === "string" && bindable(key) && !SetHas(seen, key)) {
      SetAdd(seen, key);
      bound.keys[bound.keys.length] = key;
      bound.values[bound.values.length] = value;
    }
  };
  const named = loaded.named;
  const fallback = loaded.fallback;
  if (isContainer(named)) {
    const keys = ObjectKeys(named);
    for (let i = 0; i < keys.length; i++) {
      if (keys[i] !== "__esModule") add(keys[i], named[keys[i]]);
    }
  }
  if (isContainer(fallback) && !isProxy(fallback)) {
    const keys = ObjectKeys(fallback);
    for (let i = 0; i < keys.length; i++) add(keys[i], fallback[keys[i]]);
    if (typeof fallback === "function") {
      const own = ObjectGetOwnPropertyDescriptor(fallback, "name");
      if (own !== undefined) add(own.value, fallback);
    }
  }
  return bound;
}

/** A call expression's value: evaluated in the entry module's scope (through the line
 * the host appended to it, see `node_calls.py`), with its exports bound as parameters;
 * in the global scope when that line never ran. */
function evaluate(loaded, expression) {
  const bound = exportedNames(loaded);
  let params = "";
  for (let i = 0; i < bound.keys.length; i++) params = params + (i > 0 ? ", " : "") + bound.keys[i];
  const source = "(function (" + params + ") {\nreturn (" + expression + "\n);\n})";
  const make = scopeEval !== null ? scopeEval : globalEval;
  return ReflectApply(make(source), undefined, bound.values);
}

/** The value a case's call gave, awaited when it is a real promise; boxed, since an
 * async function returning a bare thenable would adopt it (a thenable is an object). The
 * boxes that cross a promise have no prototype: a `then` the code put on
 * Object.prototype never sees them. */
async function settle(value) {
  if (!isPromise(value)) return { __proto__: null, value };
  // A promise that never settles is a case that never ends (the run's timeout), not a
  // process whose event loop ran dry.
  const alive = setIntervalOf(() => {}, 1 << 30);
  try {
    return { __proto__: null, value: await value };
  } finally {
    clearIntervalOf(alive);
  }
}

async function run(loaded, index) {
  const c = cases[index];
  let value;
  try {
    if (c.expression !== null) {
      value = (await settle(evaluate(loaded, c.expression))).value;
    } else {
      const found = resolve(loaded, c.function);
      value = (await settle(ReflectApply(found.fn, found.self, c.args))).value;
    }
  } catch (thrown) {
    return raisedReply(thrown);
  }
  try {
    return '{"value":' + encode(value, 0, { items: MAX_ITEMS, chars: MAX_CHARS }) + "}";
  } catch (thrown) {
    if (thrown === TOO_BIG) {
      return '{"value":' + unsupported("a value too large or deep to compare") + "}";
    }
    return '{"value":' + unsupported("unencodable: " + thrownMessage(thrown)) + "}";
  }
}

async function main() {
  // What the code leaves thrown in a timer or rejected unheard is said on stderr; the
  // cases go on (node would otherwise end the run, and every case left with it).
  processOn(theProcess, "uncaughtException", (thrown) => {
    try {
      writeSync(2, "uncaught exception: " + thrownMessage(thrown) + "\n");
    } catch {
      // stderr full or closed: nothing to say it with
    }
  });
  let loaded;
  try {
    loaded = await load();
  } catch (thrown) {
    send(importFailure(thrown));
    exit(0);
  }
  send('{"imported":true}');
  for (;;) {
    const asked = receive();
    if (asked === null || typeof asked !== "object" || !ObjectHasOwn(asked, "case")) break;
    const index = asked.case;
    if (typeof index !== "number" || index < 0 || index >= caseCount) break;
    send(await run(loaded, index));
  }
  exit(0);
}

main().catch((thrown) => {
  try {
    writeSync(2, "codeif node harness: " + thrownMessage(thrown) + "\n");
  } finally {
    exit(70);
  }
});
