import { describe, it, expect } from 'vitest';
import {
  CURRENT_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSION,
  VERSION_HEADER,
  parseProtocolVersion,
} from '../../src/protocol/version.js';

describe('parseProtocolVersion', () => {
  it.each([
    ['1.0', 1, 0, '1.0'],
    ['1.0.2', 1, 0, '1.0'],
    [' 1.0 ', 1, 0, '1.0'],
    ['\t1.0\t', 1, 0, '1.0'],
    [' 1.0.2 ', 1, 0, '1.0'],
    ['0.3', 0, 3, '0.3'],
    ['0.3.0', 0, 3, '0.3'],
    ['2.1', 2, 1, '2.1'],
    ['10.12', 10, 12, '10.12'],
  ])('reads %j as Major.Minor %i.%i (text %s)', (value, major, minor, text) => {
    expect(parseProtocolVersion(value)).toEqual({ major, minor, text });
  });

  // Spec 3.6.2: "Agents MUST interpret empty value as 0.3 version."
  it.each([
    ['an empty string', ''],
    ['only spaces', '   '],
    ['only tabs', '\t\t'],
    ['undefined', undefined],
    ['null', null],
  ])('reads %s as 0.3', (_label, value) => {
    expect(parseProtocolVersion(value)).toEqual({ major: 0, minor: 3, text: '0.3' });
  });

  it.each([
    '1',
    '1.',
    '.1',
    'v1.0',
    '1.0.0.0',
    '1.x',
    '01.0',
    '1.01',
    '1.0-beta',
    '1.0.',
    'abc',
    '1,0',
    '1. 0',
    '1 .0',
    '-1.0',
    '1.0.x',
  ])('rejects %j', (value) => {
    expect(parseProtocolVersion(value)).toBeUndefined();
  });

  it('ignores the patch part when comparing versions (spec 3.6)', () => {
    expect(parseProtocolVersion('1.0.7')?.text).toBe(parseProtocolVersion('1.0')?.text);
  });
});

describe('version constants', () => {
  it('speaks 1.0, assumes 0.3 when absent and uses the A2A-Version header', () => {
    expect(CURRENT_PROTOCOL_VERSION).toBe('1.0');
    expect(LEGACY_PROTOCOL_VERSION).toBe('0.3');
    expect(VERSION_HEADER).toBe('A2A-Version');
    expect(parseProtocolVersion(CURRENT_PROTOCOL_VERSION)?.text).toBe(CURRENT_PROTOCOL_VERSION);
    expect(parseProtocolVersion(undefined)?.text).toBe(LEGACY_PROTOCOL_VERSION);
  });
});
