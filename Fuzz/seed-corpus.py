#!/usr/bin/env python3
"""Seeds Fuzz/Corpus/<target>/ from the string literals the tests already use.

Run from the repository root: `python3 Fuzz/seed-corpus.py`. It only adds files (named by the
SHA-1 of their bytes, as libFuzzer names its own), so running it again, or after libFuzzer
added finds, changes nothing that is there. Heuristic by design: each target takes the literals
of the tests of its own parser, filtered by shape (JSON objects for the JSON targets, text with
a colon and a newline for YAML, short text for lengths and angles).
"""
import glob
import hashlib
import json
import os
import re
import sys

# A Swift string literal: raw (#"…"#), multi-line ("""…"""), or plain ("…").
LITERAL = re.compile(r'#"(.*?)"#|"""\n(.*?)\n([ \t]*)"""|"((?:[^"\\\n]|\\.)*)"', re.S)
ESCAPE = re.compile(r'\\(u\{([0-9A-Fa-f]+)\}|.)', re.S)
SIMPLE = {'n': '\n', 't': '\t', 'r': '\r', '0': '\0', '"': '"', "'": "'", '\\': '\\'}


def unescape(text):
    def one(match):
        if match.group(2):
            return chr(int(match.group(2), 16))
        return SIMPLE.get(match.group(1), match.group(0))
    return ESCAPE.sub(one, text)


def literals(paths):
    """Every literal in the files, unescaped; interpolated ones are left out (their text is code)."""
    found = []
    for path in paths:
        source = open(path, encoding='utf-8').read()
        for match in LITERAL.finditer(source):
            raw, multi, indent, plain = match.groups()
            if raw is not None:
                found.append(raw)
            elif multi is not None:
                if '\\(' in multi:
                    continue
                lines = [line[len(indent):] if line.startswith(indent) else line.lstrip()
                         for line in multi.split('\n')]
                found.append(unescape('\n'.join(lines) + '\n'))
            elif '\\(' not in plain:
                found.append(unescape(plain))
    return found


def tests(*patterns):
    return sorted(path for pattern in patterns for path in glob.glob(os.path.join('Tests', pattern)))


def is_json_object(text):
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def write(target, inputs, limit=60):
    directory = os.path.join('Fuzz', 'Corpus', target)
    os.makedirs(directory, exist_ok=True)
    unique = list(dict.fromkeys(inputs))[:limit]
    for data in unique:
        name = hashlib.sha1(data).hexdigest()
        path = os.path.join(directory, name)
        if not os.path.exists(path):
            with open(path, 'wb') as file:
                file.write(data)
    print(f'{target}: {len(unique)} seeds')


def encoded(texts):
    return [text.encode('utf-8') for text in texts]


def main():
    short = lambda texts: [t for t in texts if 0 < len(t) <= 40]
    write('angle', encoded(short(literals(tests('GeometryTests/AngleParsingTests.swift',
                                                 'GeometryTests/AngleUnitTests.swift')))))
    write('length', encoded(short(literals(tests('RulerTests/LengthTextTests.swift',
                                                  'RulerTests/LengthTests.swift')))))

    config_tests = tests('ConfigurationTests/LiveSettings*.swift', 'ConfigurationTests/VibrationSettingsTests.swift')
    write('config-json', encoded(t for t in literals(config_tests) if t.lstrip()[:1] in '{['))

    # The per-key target's first byte picks the key by its index in LiveKey (Sources/Settings).
    keys = re.findall(r'^\s*case (\w+)(?: = "(\w+)")?', open('Sources/Settings/LiveSettings.swift').read()
                      .split('package enum LiveKey', 1)[1].split('}', 1)[0], re.M)
    names = [wire or swift for swift, wire in keys]
    pairs = []
    for path in config_tests:
        source = open(path, encoding='utf-8').read()
        for key, value in re.findall(r'(?:applying|rawRejection)\(\s*"(\w+)",\s*(?:raw:\s*)?("(?:[^"\\\n]|\\.)*"|#".*?"#)',
                                     source):
            text = value[2:-2] if value.startswith('#') else unescape(value[1:-1])
            index = names.index(key) if key in names else len(names)  # len(names): the unknown key
            pairs.append(bytes([index]) + text.encode('utf-8'))
    write('config-key', pairs)

    yaml_tests = tests('ConfigurationTests/ConfigFile*.swift', 'ConfigurationTests/VibrationConfigFileTests.swift',
                       'ConfigurationTests/OverrideTests.swift', 'ConfigurationTests/EffectiveConfigTests.swift')
    yaml = [t for t in literals(yaml_tests) if ':' in t and '\n' in t]
    write('yaml', [open('config/plumb.yaml', 'rb').read()] + encoded(yaml))

    # Each ruler request goes to the service whose keys it has; the malformed payloads of the
    # handler's tests (not JSON objects at all) go to every service.
    ruler_literals = literals(tests('RulerTests/*.swift'))
    requests = {'ruler': [], 'convert': [], 'rise': [], 'shim': []}
    for text in ruler_literals:
        if not is_json_object(text):
            continue
        keys = set(json.loads(text))
        service = ('shim' if 'width' in keys else 'rise' if 'span' in keys else
                   'convert' if 'from' in keys or 'to' in keys else 'ruler' if 'length' in keys else None)
        for name in ([service] if service else requests):
            requests[name].append(text)
    malformed = [t for t in literals(tests('RulerTests/HandlerTests.swift'))
                 if len(t) < 200 and not is_json_object(t) and t[:1] in '{["n0123456789 -l']
    for name, texts in requests.items():
        write(f'ruler-{name}', encoded(texts + malformed))


if __name__ == '__main__':
    sys.exit(main())
