/**
 * A StrykerJS ignorer: leaves unmutated the reference's fault and variation switches and the code
 * only they reach, and the wording of its error bodies. With every switch off (as the mutation run has them), a mutant there either
 * changes nothing (equivalent) or turns a switch on, which the fault and variation matrices
 * already prove (test/support/fault-matrix.ts, variation-matrix.ts). Plain JavaScript: Stryker
 * loads it as a plugin.
 */
import { PluginKind, declareValuePlugin } from '@stryker-mutator/api/plugin';

/** Calls that read a switch: ctx.fault(...), ctx.varies(...), and the reference's readers built on them. */
const SWITCH_READERS = new Set(['fault', 'varies', 'served', 'wrongTypeField']);
/** Helpers the reference calls only where a switch is on. */
const ONLY_UNDER_SWITCHES = new Set(['wrongType', 'rightType', 'sameDays', 'sameName', 'tombstones', 'upsert', 'ignoringRole']);

function isSwitch(node) {
  if (node?.type !== 'CallExpression') return false;
  const callee = node.callee;
  const name = callee.type === 'MemberExpression' ? callee.property.name : callee.name;
  return SWITCH_READERS.has(name);
}

/** Truthy only when a switch is on: a switch call, or an && chain holding one. */
function onlyWhenOn(node) {
  if (isSwitch(node)) return true;
  if (node?.type === 'LogicalExpression' && node.operator === '&&') return onlyWhenOn(node.left) || onlyWhenOn(node.right);
  return false;
}

const BRANCHING = new Set(['IfStatement', 'ConditionalExpression']);

/** The code and message of an error answer, error(status, code, message): its body is not shown (section 7). */
function isErrorWording(path) {
  const { parent, listKey, key } = path;
  return parent?.type === 'CallExpression' && parent.callee.name === 'error' && listKey === 'arguments' && key > 0;
}

export const strykerPlugins = [
  declareValuePlugin(PluginKind.Ignore, 'switches', {
    shouldIgnore(path) {
      const { node, parent, key } = path;
      if (isSwitch(node)) return 'a fault or variation switch: off in this run, each proven by its own matrix';
      if (isErrorWording(path)) return 'the wording of an error body: not shown (section 7); variations errors-problem-json and errors-plain-text answer others';
      if (onlyWhenOn(node)) return 'holds only while a fault or variation is on';
      if (node.type === 'UnaryExpression' && node.operator === '!' && onlyWhenOn(node.argument)) return 'a fault or variation switch, negated: true in this run, false only while it is on';
      if (parent && BRANCHING.has(parent.type) && key === 'consequent' && onlyWhenOn(parent.test)) return 'runs only while a fault or variation is on';
      const declared = node.type === 'FunctionDeclaration' ? node.id?.name : undefined;
      if (declared && ONLY_UNDER_SWITCHES.has(declared)) return `${declared} serves only faults and variations`;
      return undefined;
    },
  }),
];
