/// ICAO 9303-3 three-letter codes → the two-letter ISO 3166-1 codes X.509 certificates carry.
/// The ISO 3166-1 pairs plus the ICAO-specific codes (D for Germany, the British national
/// categories, Kosovo, the EU and UN documents).
public enum CountryCodes {
    static let iso: [String: String] = {
        let packed = """
ABWAW AFGAF AGOAO AIAAI ALAAX ALBAL ANDAD AREAE ARGAR ARMAM ASMAS ATAAQ ATFTF ATGAG AUSAU AUTAT
AZEAZ BDIBI BELBE BENBJ BESBQ BFABF BGDBD BGRBG BHRBH BHSBS BIHBA BLMBL BLRBY BLZBZ BMUBM BOLBO
BRABR BRBBB BRNBN BTNBT BVTBV BWABW CAFCF CANCA CCKCC CHECH CHLCL CHNCN CIVCI CMRCM CODCD COGCG
COKCK COLCO COMKM CPVCV CRICR CUBCU CUWCW CXRCX CYMKY CYPCY CZECZ DEUDE DJIDJ DMADM DNKDK DOMDO
DZADZ ECUEC EGYEG ERIER ESHEH ESPES ESTEE ETHET FINFI FJIFJ FLKFK FRAFR FROFO FSMFM GABGA GBRGB
GEOGE GGYGG GHAGH GIBGI GINGN GLPGP GMBGM GNBGW GNQGQ GRCGR GRDGD GRLGL GTMGT GUFGF GUMGU GUYGY
HKGHK HMDHM HNDHN HRVHR HTIHT HUNHU IDNID IMNIM INDIN IOTIO IRLIE IRNIR IRQIQ ISLIS ISRIL ITAIT
JAMJM JEYJE JORJO JPNJP KAZKZ KENKE KGZKG KHMKH KIRKI KNAKN KORKR KWTKW LAOLA LBNLB LBRLR LBYLY
LCALC LIELI LKALK LSOLS LTULT LUXLU LVALV MACMO MAFMF MARMA MCOMC MDAMD MDGMG MDVMV MEXMX MHLMH
MKDMK MLIML MLTMT MMRMM MNEME MNGMN MNPMP MOZMZ MRTMR MSRMS MTQMQ MUSMU MWIMW MYSMY MYTYT NAMNA
NCLNC NERNE NFKNF NGANG NICNI NIUNU NLDNL NORNO NPLNP NRUNR NZLNZ OMNOM PAKPK PANPA PCNPN PERPE
PHLPH PLWPW PNGPG POLPL PRIPR PRKKP PRTPT PRYPY PSEPS PYFPF QATQA REURE ROURO RUSRU RWARW SAUSA
SDNSD SENSN SGPSG SGSGS SHNSH SJMSJ SLBSB SLESL SLVSV SMRSM SOMSO SPMPM SRBRS SSDSS STPST SURSR
SVKSK SVNSI SWESE SWZSZ SXMSX SYCSC SYRSY TCATC TCDTD TGOTG THATH TJKTJ TKLTK TKMTM TLSTL TONTO
TTOTT TUNTN TURTR TUVTV TWNTW TZATZ UGAUG UKRUA UMIUM URYUY USAUS UZBUZ VATVA VCTVC VENVE VGBVG
VIRVI VNMVN VUTVU WLFWF WSMWS YEMYE ZAFZA ZMBZM ZWEZW
"""
        var table: [String: String] = [:]
        for pair in packed.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            table[String(pair.prefix(3))] = String(pair.suffix(2))
        }
        return table
    }()

    static let icaoSpecific: [String: String] = [
        "D": "DE", "GBD": "GB", "GBN": "GB", "GBO": "GB", "GBP": "GB", "GBS": "GB",
        "RKS": "XK", "EUE": "EU", "UNO": "UN", "UNA": "UN", "UNK": "UN", "XOM": "XO",
    ]

    /// MRZ codes that name no state of their own: stateless persons, refugees, unspecified
    /// nationality, and ICAO's fictitious specimen state Utopia.
    static let withoutState: Set<String> = ["XXA", "XXB", "XXC", "XXX", "UTO"]

    /// ICAO 9303-3's codes of organisations that issue travel documents and have no ISO 3166-1
    /// pair (beside UNO/UNA/UNK, EUE and XOM above): the African Development Bank, the African
    /// Export-Import Bank, the Caribbean Community, the Council of Europe, COMESA, SADC, ECOWAS,
    /// the OECS, the International Maritime Organisation's seafarers, and Interpol.
    static let organisations: Set<String> = ["XBA", "XIM", "XCC", "XCE", "XCO", "XDC", "XEC", "XES", "XMP", "XPO"]

    /// Whether `code` (fillers allowed, as in `D<<`) is a code an MRZ may carry.
    public static func isKnownMRZCode(_ code: String) -> Bool {
        let trimmed = code.replacing("<", with: "")
        return alpha2(fromMRZ: trimmed) != nil || withoutState.contains(trimmed) || organisations.contains(trimmed)
    }

    /// The two-letter code for an MRZ issuing state or nationality, if known.
    public static func alpha2(fromMRZ code: String) -> String? {
        let trimmed = code.replacing("<", with: "")
        return icaoSpecific[trimmed] ?? iso[trimmed]
    }

    /// The three-letter code of a certificate's country (two letters, or already three as for
    /// ICAO's test state UTO), as zkPassport's circuits name states; nil when unknown.
    public static func alpha3(fromCertificateCountry country: String) -> String? {
        let code = country.uppercased()
        if code.count == 3 { return isKnownMRZCode(code) ? code : nil }
        return alpha3ByAlpha2[code]
    }

    static let alpha3ByAlpha2: [String: String] = Dictionary(iso.map { ($0.value, $0.key) }, uniquingKeysWith: { first, _ in first })

    /// Whether a certificate's country (usually two letters, sometimes the three-letter code,
    /// as in ICAO's test state UTO) names the same state as an MRZ code.
    public static func matches(certificateCountry: String, mrzCode: String) -> Bool {
        let cert = certificateCountry.uppercased()
        let mrz = mrzCode.filter { $0 != "<" }.uppercased()
        return cert == mrz || alpha2(fromMRZ: mrz) == cert
    }
}
