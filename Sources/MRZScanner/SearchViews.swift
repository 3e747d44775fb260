import ImageCodecs

/// The views of a photo the scanner looks for an MRZ in, likeliest first, each made only when
/// asked for: the photo as found (at the skew estimate or straight, whichever shows a likelier
/// zone); with its noise averaged out (dark photos); in the other grey
/// (lightest channel or luminance); upside down; at other angles than the skew estimate (a
/// background with lines of its own can mislead it); turned a quarter, half or three quarters, or
/// by ±20° beyond the skew sweep. When no zone found as the photo stands looks like an MRZ, the
/// quarter turns and tilts that look better come first (a page on its side).
struct SearchViews {
    private let scanner: MRZScanner
    private let working: LeptonicaImage
    private let otherGrey: LeptonicaImage?
    /// The band finder, each of whose steps is charged to the search's work budget.
    private let finder: CountingFinder

    private var pending: [() -> MRZBandFinder.Result?] = []
    private var stage = 0
    private var plain: MRZBandFinder.Prepared?
    private var plainScore = -Double.infinity
    /// The angle the photo as found was read at.
    private var plainAngle: Double?
    /// The zones of the photo as found, by angle (see `ranked`).
    private var plainBands: [Double: [MRZBandFinder.Band]] = [:]
    /// Turns already queued, as quarters × 100 + tilt.
    private var queuedTurns: Set<Int> = []

    init(scanner: MRZScanner, working: LeptonicaImage, otherGrey: LeptonicaImage?, budget: SearchBudget) {
        self.scanner = scanner
        self.finder = CountingFinder(finder: scanner.finder, budget: budget)
        self.working = working
        self.otherGrey = otherGrey
    }

    /// Whether the view last returned ends a round: the photo as found (and, when it looked like
    /// no MRZ, its quarter turns), then its other preparations, then the other angles and turns.
    /// Tesseract reads a round's views after the cell model has read them.
    var endsRound: Bool { pending.isEmpty && [2, 4, 7].contains(stage) }

    /// The next view's candidate zones; nil when every view was made (or the budget is spent).
    mutating func next(budget: SearchBudget) -> MRZBandFinder.Result? {
        while !budget.exhausted {
            if pending.isEmpty {
                guard stage < 7 else { return nil }
                pending = views(ofStage: stage, budget: budget)
                stage += 1
                continue
            }
            if let found = pending.removeFirst()() { return found }
        }
        return nil
    }

    private mutating func views(ofStage stage: Int, budget: SearchBudget) -> [() -> MRZBandFinder.Result?] {
        let finder = self.finder
        switch stage {
        case 0:
            plain = finder.prepare(working)
            plainScore = plain.flatMap { Self.ranked($0, [$0.skew], by: finder, known: &plainBands).first?.bands[0].score } ?? -.infinity
            guard plainScore < scanner.weakZoneScore else { return [] }
            return turns([(1, 0), (3, 0), (0, 20), (0, -20)], better: plainScore, budget: budget)
        case 1:
            // The skew estimate, the skew of every mark, or none: whichever angle shows the zone
            // that looks most like an MRZ (a straight scan whose other print leans is read straight).
            guard let plain else { return [] }
            let best = Self.ranked(plain, Self.estimates(of: plain), by: finder, known: &plainBands).first
            let angle = best?.angle ?? plain.skew
            plainAngle = angle
            scanner.trace("skew estimate \(plain.skew)°, other \(plain.otherSkew.map { "\($0)°" } ?? "none"), read at \(angle)°")
            return [{ finder.find(plain, skew: angle, known: best?.bands) }]
        case 2:
            let working = self.working
            return [{ finder.prepare(working, smoothing: true).flatMap { finder.find($0, skew: $0.skew) } }]
        case 3:
            guard let otherGrey else { return [] }
            return [{ finder.prepare(otherGrey).flatMap { finder.find($0, skew: $0.skew) } }]
        case 4:
            // A zone that looks like an MRZ but reads as none may be upside down.
            guard plainScore >= scanner.weakZoneScore else { return [] }
            queuedTurns.insert(200)
            let working = self.working
            return [{ finder.turned(working, quarterTurns: 2, tilt: 0).flatMap { finder.prepare($0) }.flatMap { finder.find($0, skew: $0.skew) } }]
        case 5:
            guard let plain else { return [] }
            let angles = ([plain.skew, plain.otherSkew, 0].compactMap { $0 } + [-9.0, -6, -3, 3, 6, 9].map { plain.skew + $0 })
                .filter { abs($0) <= finder.maxSkew && $0 != plainAngle }
            return Self.ranked(plain, angles, by: finder, known: &plainBands).prefix(2).map { view in { finder.find(plain, skew: view.angle, known: view.bands) } }
        default:
            return turns([(1, 0), (3, 0), (0, 20), (0, -20), (2, 0), (1, 20), (1, -20), (3, 20), (3, -20)], better: nil, budget: budget)
        }
    }

    /// The skew estimates (of the print, of every mark) and none: on a canvas turned by hand, or a
    /// straight page with leaning print, the estimate can be wrong.
    static func estimates(of prepared: MRZBandFinder.Prepared) -> [Double] {
        [prepared.skew] + [prepared.otherSkew, 0].compactMap { $0 }
    }

    /// The angles at which `prepared` shows zones, with them, the one whose best zone looks most
    /// like an MRZ first. `known` keeps each angle's zones: they are needed to rank it and again
    /// to read it.
    private static func ranked(_ prepared: MRZBandFinder.Prepared, _ angles: [Double], by finder: CountingFinder,
                               known: inout [Double: [MRZBandFinder.Band]]) -> [(angle: Double, bands: [MRZBandFinder.Band])] {
        var seen: Set<Double> = []
        return angles.compactMap { angle -> (angle: Double, bands: [MRZBandFinder.Band])? in
            guard seen.insert(angle).inserted else { return nil }
            let bands = known[angle] ?? finder.bands(prepared, skew: angle) ?? []
            known[angle] = bands
            return bands.isEmpty ? nil : (angle, bands)
        }.sorted { $0.bands[0].score > $1.bands[0].score }
    }

    /// The photo turned by quarter turns and a tilt, each at the angle whose best zone looks most
    /// like an MRZ; those scoring above `better` only (when given); the best-looking first (upside
    /// down counts one less: it looks as good as upright).
    private mutating func turns(_ candidates: [(quarters: Int, tilt: Double)], better: Double?,
                                budget: SearchBudget) -> [() -> MRZBandFinder.Result?] {
        var scored: [(prepared: MRZBandFinder.Prepared, angle: Double, bands: [MRZBandFinder.Band], score: Double)] = []
        for (quarters, tilt) in candidates where !queuedTurns.contains(quarters * 100 + Int(tilt)) && !budget.exhausted {
            var known: [Double: [MRZBandFinder.Band]] = [:]
            guard let turned = finder.turned(working, quarterTurns: quarters, tilt: tilt),
                  let prepared = finder.prepare(turned), let best = Self.ranked(prepared, Self.estimates(of: prepared), by: finder, known: &known).first
            else { continue }
            let score = quarters == 2 ? best.bands[0].score - 1 : best.bands[0].score
            if let better, score <= better { continue }
            queuedTurns.insert(quarters * 100 + Int(tilt))
            scored.append((prepared, best.angle, best.bands, score))
        }
        let finder = self.finder
        return scored.sorted { $0.score > $1.score }.map { view in { finder.find(view.prepared, skew: view.angle, known: view.bands) } }
    }
}

/// The band finder's steps, each charged to the search's work budget before it runs (its cost in
/// `SearchBudget.Cost`), so that what the search has done, not how long it took, decides when it stops.
struct CountingFinder {
    let finder: MRZBandFinder
    let budget: SearchBudget

    var maxSkew: Double { finder.maxSkew }

    func prepare(_ grey: LeptonicaImage, smoothing: Bool = false) -> MRZBandFinder.Prepared? {
        budget.spend(.prepare)
        return finder.prepare(grey, smoothing: smoothing)
    }

    func bands(_ prepared: MRZBandFinder.Prepared, skew: Double) -> [MRZBandFinder.Band]? {
        budget.spend(.bands)
        return finder.bands(prepared, skew: skew)
    }

    func find(_ prepared: MRZBandFinder.Prepared, skew: Double, known: [MRZBandFinder.Band]? = nil) -> MRZBandFinder.Result? {
        budget.spend(known == nil ? .findAndBands : .find)
        return finder.find(prepared, skew: skew, known: known)
    }

    func turned(_ image: LeptonicaImage, quarterTurns: Int, tilt: Double) -> LeptonicaImage? {
        budget.spend(tilt == 0 ? .turn : .tilt)
        return image.turned(quarterTurns: quarterTurns).flatMap { tilt == 0 ? $0 : $0.rotated(degrees: tilt, expand: true) }
    }
}
