//! Just enough ELF to find sections: 64-bit little-endian objects, executables and shared
//! libraries (what hipmlir builds). Every offset is checked; a malformed file is an error.

pub struct Section<'a> {
    pub name: String,
    /// The section's bytes (empty for SHT_NOBITS).
    pub data: &'a [u8],
}

pub struct Elf<'a> {
    /// ET_REL (1), ET_EXEC (2) or ET_DYN (3).
    pub kind: u16,
    pub sections: Vec<Section<'a>>,
}

impl<'a> Elf<'a> {
    pub fn is_elf(bytes: &[u8]) -> bool {
        bytes.starts_with(b"\x7fELF")
    }

    pub fn parse(bytes: &'a [u8]) -> Result<Elf<'a>, String> {
        if !Elf::is_elf(bytes) {
            return Err("not an ELF file".into());
        }
        if bytes.len() < 64 || bytes[4] != 2 || bytes[5] != 1 {
            return Err("not a 64-bit little-endian ELF file".into());
        }
        let u16_at = |at: usize| -> Result<u16, String> {
            bytes
                .get(at..at + 2)
                .map(|b| u16::from_le_bytes([b[0], b[1]]))
                .ok_or_else(|| format!("truncated ELF file (byte {at})"))
        };
        let u32_at = |at: usize| -> Result<u32, String> {
            bytes
                .get(at..at + 4)
                .map(|b| u32::from_le_bytes(b.try_into().expect("4")))
                .ok_or_else(|| format!("truncated ELF file (byte {at})"))
        };
        let u64_at = |at: usize| -> Result<u64, String> {
            bytes
                .get(at..at + 8)
                .map(|b| u64::from_le_bytes(b.try_into().expect("8")))
                .ok_or_else(|| format!("truncated ELF file (byte {at})"))
        };
        let kind = u16_at(16)?;
        let shoff = u64_at(0x28)? as usize;
        let shentsize = u16_at(0x3a)? as usize;
        let shnum = u16_at(0x3c)? as usize;
        let shstrndx = u16_at(0x3e)? as usize;
        if shnum == 0 {
            return Ok(Elf {
                kind,
                sections: Vec::new(),
            });
        }
        if shentsize < 64 {
            return Err(format!("bad section header size {shentsize}"));
        }
        struct Raw {
            name: u32,
            kind: u32,
            offset: u64,
            size: u64,
        }
        let mut raw = Vec::with_capacity(shnum);
        for i in 0..shnum {
            let at = shoff
                .checked_add(i * shentsize)
                .ok_or("section header offset overflows")?;
            raw.push(Raw {
                name: u32_at(at)?,
                kind: u32_at(at + 4)?,
                offset: u64_at(at + 24)?,
                size: u64_at(at + 32)?,
            });
        }
        let data_of = |r: &Raw| -> Result<&'a [u8], String> {
            if r.kind == 8 {
                return Ok(&[]); // SHT_NOBITS
            }
            let start = r.offset as usize;
            let end = start
                .checked_add(r.size as usize)
                .filter(|e| *e <= bytes.len())
                .ok_or_else(|| format!("a section spans {}+{} past the file", r.offset, r.size))?;
            Ok(&bytes[start..end])
        };
        let strtab = data_of(raw.get(shstrndx).ok_or("bad section name table index")?)?;
        let mut sections = Vec::with_capacity(shnum);
        for r in &raw {
            let start = r.name as usize;
            let name = strtab
                .get(start..)
                .and_then(|s| s.split(|b| *b == 0).next())
                .map(|s| String::from_utf8_lossy(s).into_owned())
                .unwrap_or_default();
            sections.push(Section {
                name,
                data: data_of(r)?,
            });
        }
        Ok(Elf { kind, sections })
    }

    pub fn section(&self, name: &str) -> Option<&Section<'a>> {
        self.sections.iter().find(|s| s.name == name)
    }

    /// The names of the symbols an object defines (`.symtab` entries with a section), e.g. the
    /// host stubs the host compile emitted for kernel template instances.
    pub fn defined_symbols(&self) -> Vec<String> {
        const SYMBOL_SIZE: usize = 24;
        let (Some(symtab), Some(strtab)) = (self.section(".symtab"), self.section(".strtab"))
        else {
            return Vec::new();
        };
        symtab
            .data
            .chunks_exact(SYMBOL_SIZE)
            .filter(|sym| u16::from_le_bytes([sym[6], sym[7]]) != 0) // st_shndx: SHN_UNDEF is 0
            .filter_map(|sym| {
                let name = u32::from_le_bytes([sym[0], sym[1], sym[2], sym[3]]) as usize;
                let bytes = strtab.data.get(name..)?.split(|b| *b == 0).next()?;
                (!bytes.is_empty()).then(|| String::from_utf8_lossy(bytes).into_owned())
            })
            .collect()
    }

    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            1 => "object file",
            2 => "executable",
            3 => "shared object or PIE executable",
            _ => "ELF file",
        }
    }
}
