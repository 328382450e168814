/**
 * A StrykerJS ignorer: leaves unmutated the reference's fault and variation switches and the code
 * only they reach, and the wording of its error bodies. With every switch off (as the mutation run has them), a mutant there either
 * changes nothing (equivalent) or turns a switch on, which the fault and variation matrices
 * already prove (test/support/fault-matrix.ts, variation-matrix.ts). Plain JavaScript: Stryker
 * loads it as a plugin.
 */
import { PluginKind, declareValuePlugin } from '@stryker-mutator/api/plugin';

/**
 * Calls that read a switch: ctx.fault(...), ctx.varies(...), the reference's readers built on them,
 * and ctx.keyRevoked?.() (the robustness fault that revokes the key in the middle of a run).
 */
const SWITCH_READERS = new Set(['fault', 'varies', 'served', 'wrongTypeFields', 'keyRevoked']);
/**
 * Helpers and tables the reference uses only where a switch is on, or whose answer is empty (or
 * true) while every switch is off.
 */
const ONLY_UNDER_SWITCHES = new Set([
  'wrongType', 'rightType', 'sameDays', 'sameName', 'tombstones', 'upsert', 'ignoringRole',
  'served', 'seedChanges', 'strictly', 'nextMember', 'wrongTypeFields', 'SERVED', 'SOCIAL_DOMAINS', 'URL_FIELDS', 'UNSET_IN_SEED', 'CROSSED', 'BROKEN_PAGING',
]);

function isSwitch(node) {
  if (node?.type !== 'CallExpression' && node?.type !== 'OptionalCallExpression') return false;
  const callee = node.callee;
  const name = callee.type === 'MemberExpression' ? callee.property.name : callee.name;
  return SWITCH_READERS.has(name);
}

/**
 * Truthy only when a switch is on: a switch call, a method of its answer (an empty list while
 * off), an && chain holding one, or an || of such.
 */
function onlyWhenOn(node) {
  if (isSwitch(node)) return true;
  if (node?.type === 'CallExpression' && node.callee.type === 'MemberExpression' && isSwitch(node.callee.object)) return true;
  if (node?.type === 'LogicalExpression' && node.operator === '&&') return onlyWhenOn(node.left) || onlyWhenOn(node.right);
  if (node?.type === 'LogicalExpression' && node.operator === '||') return onlyWhenOn(node.left) && onlyWhenOn(node.right);
  return false;
}

/** True whenever every switch is off: a negated switch, or an || holding one. */
function alwaysWhenOff(node) {
  if (node?.type === 'UnaryExpression' && node.operator === '!') return onlyWhenOn(node.argument);
  if (node?.type === 'LogicalExpression' && node.operator === '||') return alwaysWhenOff(node.left) || alwaysWhenOff(node.right);
  return false;
}

const BRANCHING = new Set(['IfStatement', 'ConditionalExpression']);

/** A statement of a block that an earlier `if (<true while off>) return` ends before it while every switch is off. */
function afterReturnWhileOff(path) {
  const { parent, listKey, key } = path;
  if (parent?.type !== 'BlockStatement' || listKey !== 'body') return false;
  const returns = (n) => n.type === 'ReturnStatement' || (n.type === 'BlockStatement' && n.body.at(-1)?.type === 'ReturnStatement');
  return parent.body.slice(0, key).some((n) => n.type === 'IfStatement' && !n.alternate && alwaysWhenOff(n.test) && returns(n.consequent));
}

/**
 * The code and message of an error answer, error(status, code, message), and the message of a 401
 * (deny(message) in reference/routes/auth.ts): an error body is not shown (section 7).
 */
const WORDING_FROM = new Map([['error', 1], ['deny', 0]]);
function isErrorWording(path) {
  const { parent, listKey, key } = path;
  const from = parent?.type === 'CallExpression' ? WORDING_FROM.get(parent.callee.name) : undefined;
  return from !== undefined && listKey === 'arguments' && key >= from;
}

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'switches', {
    shouldIgnore(path) {
      const { node, parent, key } = path;
      if (isSwitch(node)) return 'a fault or variation switch: off in this run, each proven by its own matrix';
      if (isErrorWording(path)) return 'the wording of an error body: not shown (section 7); variations errors-problem-json and errors-plain-text answer others';
      if (onlyWhenOn(node)) return 'holds only while a fault or variation is on';
      if (alwaysWhenOff(node)) return 'a fault or variation switch, negated: true in this run, false only while it is on';
      if (parent && BRANCHING.has(parent.type) && key === 'consequent' && onlyWhenOn(parent.test)) return 'runs only while a fault or variation is on';
      if (parent?.type === 'ForOfStatement' && key === 'body' && onlyWhenOn(parent.right)) return 'loops over what a switch lists: nothing while it is off';
      if (afterReturnWhileOff(path)) return 'runs only while a fault or variation is on: a line above returns while it is off';
      const declared = node.type === 'FunctionDeclaration' || node.type === 'VariableDeclarator' ? node.id?.name : undefined;
      if (declared && ONLY_UNDER_SWITCHES.has(declared)) return `${declared} serves only faults and variations`;
      return undefined;
    },
  }),
];
