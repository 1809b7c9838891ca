#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
# A pathological ELF for the launch detector's reader (issue 31, N3):
# PHDRS program headers (PT_NULL: no executable PT_LOAD covers any
# symbol, so a reader looks the address up again for every symbol) and
# NDYN .dynsym sections sharing one table of NSYM "hipLaunchKernel"
# functions. libelf's walk over it (NSYM x NDYN x PHDRS header reads)
# spun for minutes.
#
#   bad_elf.py OUT [PHDRS [NDYN [NSYM]]]     defaults 60000 100 10000
import struct
import sys

out = sys.argv[1]
phnum = int(sys.argv[2]) if len(sys.argv) > 2 else 60000
ndyn = int(sys.argv[3]) if len(sys.argv) > 3 else 100
nsym = int(sys.argv[4]) if len(sys.argv) > 4 else 10000

strtab = b"\0hipLaunchKernel\0"
phoff = 64
stroff = phoff + 56 * phnum
symoff = (stroff + len(strtab) + 7) & ~7
syms = struct.pack("<IBBHQQ", 0, 0, 0, 0, 0, 0)
syms += struct.pack("<IBBHQQ", 1, 0x12, 0, 1, 0x1000, 16) * (nsym - 1)
shoff = (symoff + len(syms) + 7) & ~7
shnum = 2 + ndyn
ident = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
eh = ident + struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, phoff, shoff, 0,
                         64, 56, phnum, 64, shnum, 0)
ph = bytes(56) * phnum
sh = bytes(64)
sh += struct.pack("<IIQQQQIIQQ", 0, 3, 0, 0, stroff, len(strtab), 0, 0,
                  1, 0)
for _ in range(ndyn):
    sh += struct.pack("<IIQQQQIIQQ", 0, 11, 2, 0, symoff, len(syms), 1,
                      1, 8, 24)
with open(out, "wb") as f:
    f.write(eh + ph + strtab)
    f.write(bytes(symoff - stroff - len(strtab)) + syms)
    f.write(bytes(shoff - symoff - len(syms)) + sh)
