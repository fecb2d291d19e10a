import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FairSlots } from './semaphore.ts';

const tick = () => new Promise((r) => setImmediate(r));

test('one project holds at most three quarters of the slots; another still gets one at once', async () => {
  const slots = new FairSlots(32);
  let hog = 0;
  for (let i = 0; i < 40; i++) void slots.acquire('hog').then(() => hog++);
  await tick();
  assert.equal(hog, 24);
  let other = false;
  void slots.acquire('other').then(() => {
    other = true;
  });
  await tick();
  assert.equal(other, true);
});

test('a freed slot goes to the waiting project that holds the fewest', async () => {
  const slots = new FairSlots(4);
  const order: string[] = [];
  for (let i = 0; i < 6; i++) void slots.acquire('a').then(() => order.push('a'));
  await tick();
  assert.deepEqual(order, ['a', 'a', 'a']);
  void slots.acquire('b').then(() => order.push('b'));
  void slots.acquire('b').then(() => order.push('b'));
  await tick();
  assert.deepEqual(order, ['a', 'a', 'a', 'b'], 'the one free slot goes to b');
  slots.release('a');
  await tick();
  // a holds 2, b holds 1: the fair share of 4 over 2 projects is 2, so b is served first.
  assert.deepEqual(order.slice(4), ['b']);
  slots.release('a');
  await tick();
  assert.deepEqual(order.slice(5), ['a']);
  assert.equal(slots.held('a'), 2);
  assert.equal(slots.held('b'), 2);
});

test('alone, a project may use up to its cap; one slot is one slot', async () => {
  const one = new FairSlots(1);
  await one.acquire('x');
  let second = false;
  void one.acquire('x').then(() => {
    second = true;
  });
  await tick();
  assert.equal(second, false);
  one.release('x');
  await tick();
  assert.equal(second, true);
});
