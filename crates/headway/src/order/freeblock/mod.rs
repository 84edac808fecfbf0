//! Free reads planned in a foreground command's rotational latency: the greedy track search
//! ([`planner`]) over the wanted-block bitmap ([`wanted`]), shared by the host's freeblock
//! scheduler and the drive's firmware freeblock.

pub mod planner;
pub mod wanted;
