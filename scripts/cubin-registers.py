#!/usr/bin/env python3
"""Register counts recorded in a cubin (EIATTR_REGCOUNT, attribute 0x2f of the .nv.info section),
the field the driver reads for cudaFuncAttributes::numRegs. CSV: cubin,kernel,num_regs."""
import struct, sys, glob, os, csv
def regs(path):
    b = open(path, 'rb').read()
    shoff, = struct.unpack_from('<Q', b, 0x28); shentsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 0x3a)
    secs = [struct.unpack_from('<IIQQQQIIQQ', b, shoff + i * shentsize) for i in range(shnum)]
    def cstr(base, off): return b[base + off: b.index(b'\0', base + off)].decode()
    names = [cstr(secs[shstrndx][4], s[0]) for s in secs]
    symtab = secs[names.index('.symtab')]; strtab = secs[symtab[6]]
    syms = [cstr(strtab[4], struct.unpack_from('<I', b, symtab[4] + i * 24)[0]) for i in range(symtab[5] // 24)]
    out = {}
    info = secs[names.index('.nv.info')]
    p, end = info[4], info[4] + info[5]
    while p < end:
        fmt, attr = b[p], b[p + 1]
        if fmt == 4:
            size, = struct.unpack_from('<H', b, p + 2)
            if attr == 0x2f:
                idx, r = struct.unpack_from('<II', b, p + 4); out[syms[idx]] = r
            p += 4 + size
        elif fmt == 3: p += 4
        elif fmt == 2: p += 3
        else: p += 2
    return out
w = csv.writer(sys.stdout); w.writerow(["cubin", "kernel", "num_regs"])
for p in sorted(glob.glob(sys.argv[1] + '/*.cubin')):
    for k, r in sorted(regs(p).items()): w.writerow([os.path.basename(p), k, r])
