use sourcebot::score::domain::DomainTiers;
fn main() {
    let tiers = DomainTiers::builtin();
    for line in std::io::stdin().lines() {
        let url = line.unwrap();
        println!("{}\t{}", url, tiers.domain_score(&url));
    }
}
