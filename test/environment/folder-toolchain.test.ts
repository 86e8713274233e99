import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planFixEnvironment } from '../../src/cli/fix-environment.js';
import { defaultRepoConfig } from '../../src/config/repo-config.js';
import { folderToolchain } from '../../src/environment/folder-toolchain.js';
import { useTempDirs } from '../helpers/temp-dir.js';

describe("selfdebug fix: the toolchain from the folder's files", () => {
  const tempDir = useTempDirs();

  /** The image picked for a folder holding `files`. */
  async function pick(files: Record<string, string>, images: Record<string, string> = {}) {
    const dir = await tempDir();
    for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
    return folderToolchain(dir, images);
  }

  it.each([
    [{ 'package.json': '{"engines":{"node":">=20.18.1"}}' }, 'node:20-bookworm'],
    [{ '.nvmrc': 'v18.19.0\n' }, 'node:18-bookworm'],
    [{ 'pyproject.toml': '[project]\nrequires-python = ">=3.11"\n' }, 'python:3.11-bookworm'],
    [{ '.python-version': '3.10.4\n' }, 'python:3.10-bookworm'],
    [{ 'go.mod': 'module example.com/x\n\ngo 1.22.3\n' }, 'golang:1.22-bookworm'],
    [{ 'pom.xml': '<properties><java.version>17</java.version></properties>' }, 'eclipse-temurin:17-jdk'],
    [
      { 'build.gradle': 'java { toolchain { languageVersion = JavaLanguageVersion.of(21) } }' },
      'eclipse-temurin:21-jdk',
    ],
    [{ Gemfile: 'source "https://rubygems.org"\nruby "3.2.2"\n' }, 'ruby:3.2-bookworm'],
    [{ 'Cargo.toml': '[package]\nname = "x"\nrust-version = "1.74"\n' }, 'rust:1.74-bookworm'],
  ])('%j → %s', async (files, image) => {
    const found = await pick(files);
    expect(found?.image).toBe(image);
    expect(found?.imageReason).toContain(Object.keys(files)[0]);
  });

  it('goes through the operator table, as the App does', async () => {
    const found = await pick({ '.nvmrc': '20\n' }, { 'node:20': 'ops.local/node:20' });
    expect(found?.image).toBe('ops.local/node:20');
    expect(found?.imageReason).toContain('SELFDEBUG_TOOLCHAIN_IMAGES node:20');
  });

  it('a toolchain named without a version keeps the default image unless the operator maps it', async () => {
    expect((await pick({ 'requirements.txt': 'requests\n' }))?.image).toBeNull();
    expect(
      (await pick({ 'requirements.txt': 'requests\n' }, { python: 'ops.local/py:{version}' }))?.image,
    ).toBe('ops.local/py:3.12');
    // package.json without engines says nothing about Node: the next file decides.
    expect((await pick({ 'package.json': '{"name":"x"}', 'go.mod': 'go 1.21\n' }))?.image).toBe(
      'golang:1.21-bookworm',
    );
    expect(await pick({ 'main.py': 'print(1)\n' })).toBeNull();
  });

  it('--image wins over the pick and the notes say where each part came from', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, '.nvmrc'), '20\n');
    const input = {
      options: { setup: ['npm ci'], image: undefined, workflow: undefined },
      folder: { config: defaultRepoConfig, path: null, notes: [] },
      dir,
      command: 'npm test',
      toolchainImages: {},
      allowedImages: [],
    };
    const picked = await planFixEnvironment(input);
    expect(picked.request.image).toBe('node:20-bookworm');
    expect(picked.request.setup).toEqual([{ command: 'npm ci' }]);
    expect(picked.source).toBe("the folder's toolchain files");
    const flagged = await planFixEnvironment({ ...input, options: { ...input.options, image: 'mine:1' } });
    expect(flagged.request.image).toBe('mine:1');
    expect(flagged.request.notes?.[0]).toContain('from --image');
  });
});
