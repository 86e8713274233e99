import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classifyEdits } from '../../src/loop/test-guard/classify-edits.js';
import type { TestFindingKind } from '../../src/loop/test-guard/findings.js';

/** Real test files (sources and licences in test/fixtures/test-guard/README.md) and their weakened variants. */
const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/test-guard/${name}.txt`, import.meta.url), 'utf8');

const context = { command: 'run the tests', protectedPaths: [] };

function kinds(path: string, before: string | null, after: string | null): TestFindingKind[] {
  return classifyEdits([{ path, before, after }], context).map((finding) => finding.kind);
}

/** The text with `search` (which must occur) replaced once. */
function edit(text: string, search: string, replace: string): string {
  expect(text).toContain(search);
  return text.replace(search, () => replace);
}

interface Ecosystem {
  name: string;
  path: string;
  text: string;
  loosened: [string, string];
  removedAssertion: string;
  skipped: [string, string];
  deletedTest: string;
  newTest: [string, string];
}

const ecosystems: Ecosystem[] = [
  {
    name: 'Jest',
    path: 'src/__tests__/try-path.test.js',
    text: fixture('try-path.test.js'),
    loosened: ['expect(result).toBeUndefined();', 'expect(result).toBeFalsy();'],
    removedAssertion: '        expect(result).toBeUndefined();\n',
    skipped: ['it("should return no paths for relative', 'it.skip("should return no paths for relative'],
    deletedTest:
      '    it("should return no paths for relative requested module", function () {\n' +
      '        var result = (0, try_path_1.getPathsToTry)([".ts", "tsx"], abosolutePathMappings, "./requested-module");\n' +
      '        expect(result).toBeUndefined();\n    });\n',
    newTest: [
      'describe("mapping-entry", function () {\n',
      'describe("mapping-entry", function () {\n    it("handles an empty list", function () {\n        expect((0, try_path_1.getPathsToTry)([], [], "x")).toBeUndefined();\n    });\n',
    ],
  },
  {
    name: 'pytest',
    path: 'tests/test_structures.py',
    text: fixture('test_structures.py'),
    loosened: [
      'assert list(self.case_insensitive_dict) == ["Accept"]',
      'assert list(self.case_insensitive_dict)',
    ],
    removedAssertion: '        assert copy is not self.case_insensitive_dict\n',
    skipped: ['    def test_list(self):', '    @pytest.mark.skip(reason="flaky")\n    def test_list(self):'],
    deletedTest: '    def test_repr(self):\n        assert repr(self.lookup_dict) == "<lookup \'test\'>"\n\n',
    newTest: [
      'class TestLookupDict:\n',
      'class TestLookupDict:\n    def test_len(self):\n        assert len(LookupDict("x").__dict__) == 1\n\n',
    ],
  },
  {
    name: 'Go',
    path: 'hello/reverse/reverse_test.go',
    text: fixture('reverse_test.go'),
    loosened: ['if got != c.want {', 'if len(got) != len(c.want) {'],
    removedAssertion: '\t\t\tt.Errorf("String(%q) == %q, want %q", c.in, got, c.want)\n',
    skipped: ['func TestString(t *testing.T) {\n', 'func TestString(t *testing.T) {\n\tt.Skip("later")\n'],
    deletedTest:
      'func TestString(t *testing.T) {\n\tfor _, c := range []struct {\n\t\tin, want string\n\t}{\n' +
      '\t\t{"Hello, world", "dlrow ,olleH"},\n\t\t{"Hello, 世界", "界世 ,olleH"},\n\t\t{"", ""},\n\t} {\n' +
      '\t\tgot := String(c.in)\n\t\tif got != c.want {\n' +
      '\t\t\tt.Errorf("String(%q) == %q, want %q", c.in, got, c.want)\n\t\t}\n\t}\n}\n',
    newTest: [
      'import "testing"\n',
      'import "testing"\n\nfunc TestEmpty(t *testing.T) {\n\tif String("") != "" {\n\t\tt.Fatal("not empty")\n\t}\n}\n',
    ],
  },
  {
    name: 'JUnit',
    path: 'gson/src/test/java/com/google/gson/DefaultMapJsonSerializerTest.java',
    text: fixture('DefaultMapJsonSerializerTest.java'),
    loosened: ['assertTrue(mapJsonObject.has(key));', 'assertNotNull(mapJsonObject);'],
    removedAssertion: '    assertTrue(mapJsonObject.has(key));\n',
    skipped: [
      '  public void testNonEmptyMapSerialization',
      '  @Ignore("later")\n  public void testNonEmptyMapSerialization',
    ],
    deletedTest:
      '  public void testEmptyMapSerialization() {\n' +
      '    Type mapType = new TypeToken<Map<String, String>>() { }.getType();\n' +
      '    Map<String, String> emptyMap = new HashMap<>();\n' +
      '    JsonElement element = gson.toJsonTree(emptyMap, mapType);\n\n' +
      '    assertTrue(element instanceof JsonObject);\n' +
      '    JsonObject emptyMapJsonObject = (JsonObject) element;\n' +
      '    assertTrue(emptyMapJsonObject.entrySet().isEmpty());\n  }\n',
    newTest: [
      '  private Gson gson = new Gson();\n',
      '  private Gson gson = new Gson();\n\n  @Test\n  public void nullMap() {\n    assertEquals("null", gson.toJson(null));\n  }\n',
    ],
  },
  {
    name: 'Rust',
    path: 'tests/misc.rs',
    text: fixture('misc.rs'),
    loosened: [
      'assert_eq!(regex!(r"[a-z]+"), Regex::new("[a-z]+").unwrap());',
      'assert!(Regex::new("[a-z]+").is_ok());',
    ],
    removedAssertion: '    assert_eq!(regex!(r"[a-z]+"), Regex::new("[a-z]+").unwrap());\n',
    skipped: ['#[test]\n', '#[test]\n#[ignore]\n'],
    deletedTest: '#[test]\nfn eq() {\n    assert_eq!(regex!(r"[a-z]+"), Regex::new("[a-z]+").unwrap());\n}\n',
    newTest: [
      'use regex::Regex;\n',
      'use regex::Regex;\n\n#[test]\nfn empty() {\n    assert!(Regex::new("").is_ok());\n}\n',
    ],
  },
  {
    name: 'RSpec',
    path: 'spec/rspec/core/invocations_spec.rb',
    text: fixture('invocations_spec.rb'),
    loosened: ['expect(exit_code).to eq(42)', 'expect(exit_code).to be_a(Integer)'],
    removedAssertion: '        expect(project_init).to have_received(:run)\n',
    skipped: ['it "returns 1" do', 'xit "returns 1" do'],
    deletedTest:
      '      it "returns a zero exit code" do\n        expect(run_invocation).to eq 0\n      end\n',
    newTest: [
      '    describe Invocations::PrintVersion do\n',
      '    describe Invocations::PrintVersion do\n      it "prints something" do\n        expect(run_invocation).to eq(0)\n      end\n\n',
    ],
  },
];

describe.each(ecosystems)('the test guard on a real $name test file', (ecosystem) => {
  const { path, text } = ecosystem;

  it('finds nothing when the file is unchanged or only gains a test', () => {
    expect(kinds(path, text, text)).toEqual([]);
    expect(kinds(path, text, edit(text, ...ecosystem.newTest))).toEqual([]);
    expect(kinds(path, null, text)).toEqual([]);
  });

  it('finds a loosened assertion', () => {
    expect(kinds(path, text, edit(text, ...ecosystem.loosened))).toEqual(['assertion-loosened']);
  });

  it('finds a removed assertion', () => {
    expect(kinds(path, text, edit(text, ecosystem.removedAssertion, ''))).toEqual(['assertion-removed']);
  });

  it('finds an added skip marker', () => {
    expect(kinds(path, text, edit(text, ...ecosystem.skipped))).toEqual(['skip-added']);
  });

  it('finds a deleted test and a deleted file', () => {
    expect(kinds(path, text, edit(text, ecosystem.deletedTest, ''))).toContain('test-deleted');
    expect(kinds(path, text, null)).toEqual(['test-file-deleted']);
    expect(kinds(path, text, '')).toEqual(['test-file-deleted']);
  });

  it('explains each finding with the file and what changed', () => {
    const [finding] = classifyEdits(
      [{ path, before: text, after: edit(text, ...ecosystem.skipped) }],
      context,
    );
    expect(finding?.path).toBe(path);
    expect(finding?.reason).toMatch(new RegExp(`^${path.replace(/[.]/g, '\\.')}: a skip marker was added`));
  });
});
