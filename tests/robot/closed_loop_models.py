"""Independent linear predictions of the robot's tracking error, written from the SPEC alone.

Cascade: the SPEC's identified position plant P(z) = K_P / (z (z - 1) (z - q)) at 250 Hz in a
loop with R2(z) (SPEC 4.2 gain formulas, soft anti-windup at +-1 A); a heavier leg scales the
mechanical time constant, T_m -> alpha T_m, so q -> q^(1/alpha) at the same static speed gain.
Local P: the voltage-driven DC motor of SPEC 3 (K = 2.30 pi rad/s per duty, T_m = 14.3 ms)
under u = 15/pi (x_w - x) per rad at 1 kHz (SPEC 2.6), x_w held between 250 Hz updates.
Neither model shares code with the emulator; only the reference sequence is taken from a run.
"""

import math

import numpy as np

F_CAN = 250.0
LSB_PER_RAD = 832 / math.pi  # SPEC 2.4: 832 LSB per pi rad


def cascade_errors(reference: np.ndarray, x0: np.ndarray, kp: float, q: float,
                   omega_d: float = 63.5, omega_i: float = 12.6, k_kp: float = 41.1e-3,
                   alpha: float = 1.0) -> np.ndarray:
    """Per-period error reference - x of R2 around P(z); reference is (periods, joints)."""
    q_a = q ** (1 / alpha)
    kp_a = kp * (1 - q_a) / (1 - q)  # same static speed gain K_P / (1 - q)
    r_p = k_kp / kp
    r_i, r_d = r_p * omega_i / F_CAN, r_p * F_CAN / omega_d
    x = [x0.astype(float)] * 3
    u = [np.zeros_like(x[0])] * 3
    integ, e_prev, errors = np.zeros_like(x[0]), None, []
    for r in reference:
        # x_k = (1 + q) x_(k-1) - q x_(k-2) + K_P u_(k-3)
        x.append((1 + q_a) * x[-1] - q_a * x[-2] + kp_a * u[-3])
        e = r - x[-1]
        e_prev = e if e_prev is None else e_prev
        u.append(np.clip(r_p * e + integ + r_d * (e - e_prev), -1.0, 1.0))
        integ = np.clip(integ + r_i * e, -1.0, 1.0)
        e_prev = e
        errors.append(e)
    return np.array(errors)


def local_p_errors(reference: np.ndarray, x0: np.ndarray, substeps: int = 20) -> np.ndarray:
    """Per-period error of the board's 1 kHz P loop on the voltage-driven motor; x_w arrives
    1 ms after its tick (the bus period's frames)."""
    k_speed, t_m, r = 2.30 * math.pi, 0.0143, 15 / math.pi
    dt = 1e-3 / substeps
    theta, omega = x0.astype(float) / LSB_PER_RAD, np.zeros(len(x0))
    x_w, errors = reference[0].astype(float), []
    for ref in reference:
        errors.append(ref - theta * LSB_PER_RAD)
        for ms in range(4):
            if ms == 1:
                x_w = ref
            duty = np.clip(r * (x_w / LSB_PER_RAD - theta), -1.0, 1.0)
            for _ in range(substeps):
                omega = omega + dt * (k_speed * duty - omega) / t_m
                theta = theta + dt * omega
    return np.array(errors)


def rms(errors: np.ndarray) -> np.ndarray:
    """Per-joint root mean square over the periods."""
    return np.sqrt(np.mean(errors**2, axis=0))
