#!/usr/bin/env python3
"""elf-drop-needed.py BINARY LIBRARY: removes LIBRARY's DT_NEEDED entry from a 64-bit ELF file, in place.

scripts/chatstream.sh uses it for libcurl.so.4 in the statically linked CLI: the CCurl target
defines every libcurl function the binary calls (trampolines that open libcurl at first use), but
FoundationNetworking's autolinked `-lcurl` still records libcurl as needed, and the dynamic loader
would then map and relocate libcurl's whole dependency tree at every start. The entry is removed
only when the binary takes no symbol from the library (no undefined `curl_` symbol), so nothing
it calls is left unresolved. The edit keeps the file's layout: the later entries of the dynamic
section move up one slot and the section ends with one more DT_NULL.

Example: python3 scripts/elf-drop-needed.py .build/static/release/chatstream libcurl.so.4
"""
import struct
import sys

DT_NULL, DT_NEEDED, DT_STRTAB = 0, 1, 5
PT_LOAD, PT_DYNAMIC = 1, 2


def drop_needed(path: str, library: str) -> bool:
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            sys.exit(f"{path}: not a little-endian 64-bit ELF file")
        phoff, = struct.unpack_from("<Q", data, 0x20)
        phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
        loads, dynamic = [], None
        for i in range(phnum):
            kind, _, offset, vaddr, _, filesz, _, _ = struct.unpack_from("<IIQQQQQQ", data, phoff + i * phentsize)
            if kind == PT_LOAD:
                loads.append((vaddr, offset, filesz))
            elif kind == PT_DYNAMIC:
                dynamic = (offset, filesz)
        if dynamic is None:
            sys.exit(f"{path}: no dynamic section")

        def file_offset(address: int) -> int:
            for vaddr, offset, size in loads:
                if vaddr <= address < vaddr + size:
                    return offset + address - vaddr
            sys.exit(f"{path}: address {address:#x} is in no loaded segment")

        entries = [struct.unpack_from("<qQ", data, dynamic[0] + 16 * i) for i in range(dynamic[1] // 16)]
        strtab = file_offset(next(value for tag, value in entries if tag == DT_STRTAB))

        def name(value: int) -> str:
            end = data.index(0, strtab + value)
            return data[strtab + value:end].decode()

        kept = [(tag, value) for tag, value in entries if not (tag == DT_NEEDED and name(value) == library)]
        if len(kept) == len(entries):
            return False
        kept += [(DT_NULL, 0)] * (len(entries) - len(kept))
        for i, (tag, value) in enumerate(kept):
            struct.pack_into("<qQ", data, dynamic[0] + 16 * i, tag, value)
        f.seek(0)
        f.write(data)
        return True


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    print(f"{sys.argv[2]}: {'dropped' if drop_needed(sys.argv[1], sys.argv[2]) else 'not needed'}", file=sys.stderr)
