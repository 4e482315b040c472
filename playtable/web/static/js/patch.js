// A table change from the server is a JSON Patch (RFC 6902, docs/protocol.md): the few fields
// a move changed, applied to the table this page holds. Only the containers on a path are
// copied, so the table the page held before is left as it was.

function unescape(token) {
  return token.replace(/~1/g, "/").replace(/~0/g, "~");
}

function copied(value) {
  if (Array.isArray(value)) return value.slice();
  if (value !== null && typeof value === "object") return { ...value };
  throw new Error("a patch path goes through a value that is neither an object nor a list");
}

function applyOne(root, operation) {
  const { op, path } = operation;
  if (path === "") {
    if (op === "replace" || op === "add") return operation.value;
    throw new Error(`cannot ${op} the whole table`);
  }
  const tokens = path.split("/").slice(1).map(unescape);
  const copy = copied(root);
  let parent = copy;
  for (const token of tokens.slice(0, -1)) {
    const key = Array.isArray(parent) ? Number(token) : token;
    if (!(key in parent)) throw new Error(`no ${path} in the table`);
    const child = copied(parent[key]);
    parent[key] = child;
    parent = child;
  }
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    const index = last === "-" ? parent.length : Number(last);
    if (!Number.isInteger(index) || index < 0 || index > parent.length) {
      throw new Error(`bad index in ${path}`);
    }
    if (op === "add") parent.splice(index, 0, operation.value);
    else if (op === "replace" && index < parent.length) parent[index] = operation.value;
    else if (op === "remove" && index < parent.length) parent.splice(index, 1);
    else throw new Error(`cannot ${op} ${path}`);
  } else if (op === "add" || (op === "replace" && last in parent)) {
    parent[last] = operation.value;
  } else if (op === "remove" && last in parent) {
    delete parent[last];
  } else {
    throw new Error(`cannot ${op} ${path}`);
  }
  return copy;
}

// The table with the patch applied; throws if it does not apply (the page then asks the
// server for the whole table).
export function applyPatch(table, operations) {
  return operations.reduce(applyOne, table);
}
