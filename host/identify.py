"""Identification of P(z) = K_P / (z (z - 1) (z - q)) on one emulated joint (SPEC 4.2).

The joint is excited through the host, as on the real robot, and the model is fitted to the
currents the host sent and the positions it measured:

chirp   log sweep 0.2..125 Hz, 0.2 A, added to the joint's PID output (the closed loop keeps
        the joint inside the pot range); the frequency response Y/U of the plant's own input and
        output (closed loop does not bias it: the excitation is external, noise is small) is
        estimated at the excited frequencies and P(e^jwT) fitted to it (log magnitude + phase)
sines   steady sines at 2, 7, 10, 15, 18, 20, 22, 25, 30, 40 Hz, 0.2 A: one Y/U per frequency
        from the settled part of each, then the same fit
step    0.2 A open-loop step; b1 (1 - exp(-b2 t)) fitted to d (Levenberg-Marquardt):
        T_m = 1 / b2, q = exp(-T b2), K_P = b1 (1 - q) / 0.2 A

Every fit also returns standard errors from its Jacobian at the optimum and the residual
variance (docs/decisions.md, "Identification", says why not a seed-to-seed spread).
"""

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from scipy import optimize

from servobus.host.pid import MimoController
from servobus.host.trajectory import Trajectory

Method = Literal["chirp", "sines", "step"]
METHODS: tuple[Method, ...] = ("chirp", "sines", "step")
AMPLITUDE_A = 0.2
SINE_HZ = (2, 7, 10, 15, 18, 20, 22, 25, 30, 40)
CHIRP_START_HZ = 0.2  # the excitation's log sweep runs from here to f / 2
CHIRP_BAND_HZ = (1.0, 30.0)  # where the chirp's Y/U is estimated for the fit
MODEL = "P(z) = K_P / (z (z - 1) (z - q))"
# The relative degree 3 of P(z), period by period (SPEC 1.1, 2.4, 4.2): the steps the model
# assumes between the host's output at tick k and the first position reading that sees it.
KNOWN_DELAYS = {
    "bus": "1 period: the current reference computed after tick k (computation and "
           "communication) is applied by the board at tick k+1",
    "zoh": "1 period: the current reference is held over the period (the current loop settles "
           "within it); with the integrator, the step-invariant discretisation is strictly proper",
    "averaging": "1 period: the position sent at tick k is the block mean of the pot over "
                 "period k-1 (80 samples at 20 kHz), modelled as one step",
}


def excitation(method: Method, f: float, seconds: float,
               amplitude: float = AMPLITUDE_A) -> np.ndarray:
    """The excitation current per bus period."""
    t = np.arange(round(seconds * f)) / f
    if method == "step":
        return np.full_like(t, amplitude)
    if method == "chirp":
        f0, f1 = CHIRP_START_HZ, f / 2
        k = math.log(f1 / f0) / seconds
        return amplitude * np.sin(2 * math.pi * f0 * (np.exp(k * t) - 1) / k)
    per = len(t) // len(SINE_HZ)
    return np.concatenate([amplitude * np.sin(2 * math.pi * hz * t[:per]) for hz in SINE_HZ])


@dataclass
class ExcitedController:
    """Wraps the host's controller: adds (or, open loop, substitutes) the excitation."""

    inner: MimoController
    joint: int
    signal: np.ndarray
    open_loop: bool = False
    sent: list[float] = field(default_factory=list)
    measured: list[float] = field(default_factory=list)

    @property
    def saturated(self) -> np.ndarray:
        """The inner controller's saturation flags."""
        return self.inner.saturated

    def reset(self, joints: np.ndarray | None = None) -> None:
        """Reset the inner controller (the excitation runs on)."""
        self.inner.reset(joints)

    def step(self, reference: np.ndarray, measured: np.ndarray) -> np.ndarray:
        """Inner output plus the excitation sample of this period for the chosen joint."""
        u = np.array(self.inner.step(reference, measured), dtype=float)
        k = len(self.sent)
        extra = self.signal[k] if k < len(self.signal) else 0.0
        j = self.joint - 1
        u[j] = float(np.clip(extra if self.open_loop else u[j] + extra, -1.0, 1.0))
        self.sent.append(u[j])
        self.measured.append(float(measured[j]))
        return u


def hold_pose(x: float, joints: int) -> Trajectory:
    """A trajectory that holds each of `joints` joints at x."""
    return Trajectory(np.full((1, joints), x), np.array([1.0]), "<hold>")


def response_at(u: np.ndarray, y: np.ndarray, hz: float, f: float) -> complex:
    """Y/U at one frequency by projection (y is detrended first)."""
    t = np.arange(len(u)) / f
    basis = np.exp(-2j * math.pi * hz * t)
    yd = y - np.polyval(np.polyfit(t, y, 1), t)
    return complex(np.dot(yd, basis) / np.dot(u, basis))


def sine_responses(u: np.ndarray, y: np.ndarray, f: float) -> tuple[np.ndarray, np.ndarray]:
    """(frequencies, Y/U) of the settled second half of every sine segment."""
    per = len(u) // len(SINE_HZ)
    resp = [response_at(u[k * per + per // 2:(k + 1) * per], y[k * per + per // 2:(k + 1) * per],
                        hz, f) for k, hz in enumerate(SINE_HZ)]
    return np.array(SINE_HZ, dtype=float), np.array(resp)


def chirp_responses(u: np.ndarray, y: np.ndarray, f: float,
                    band: tuple[float, float] = CHIRP_BAND_HZ) -> tuple[np.ndarray, np.ndarray]:
    """(frequencies, Y/U) from the spectra of the whole sweep, 40 log-spaced points in band
    (NaN where no spectral line falls within 5 % of the point)."""
    t = np.arange(len(u)) / f
    yd = y - np.polyval(np.polyfit(t, y, 1), t)
    freqs = np.fft.rfftfreq(len(u), 1.0 / f)
    uf, yf = np.fft.rfft(u), np.fft.rfft(yd)
    picks = np.geomspace(*band, 40)
    out = []
    for hz in picks:
        sel = np.abs(freqs - hz) <= hz * 0.05
        if not sel.any():  # a sweep too short to resolve this frequency
            out.append(complex("nan"))
            continue
        out.append(np.sum(yf[sel] * np.conj(uf[sel])) / np.sum(np.abs(uf[sel]) ** 2))
    return picks, np.array(out)


@dataclass(frozen=True)
class Fit:
    """Fitted q and K_P with their standard errors and covariance (from the fit's Jacobian)."""

    q: float
    kp: float
    q_se: float
    kp_se: float
    cov_kp_q: float
    rms: float  # rms residual (log units for the frequency fit, LSB per period for the step)


def _covariance(jac: np.ndarray, residuals: np.ndarray) -> np.ndarray:
    """s^2 (J^T J)^-1 with s^2 the residual variance (residuals taken as independent)."""
    dof = max(len(residuals) - jac.shape[1], 1)
    return float(residuals @ residuals) / dof * np.linalg.pinv(jac.T @ jac)


def fit_response(hz: np.ndarray, resp: np.ndarray, f: float) -> Fit:
    """K_P and q of P(z) = K_P / (z (z - 1) (z - q)) fitted to measured Y/U (log magnitude and
    phase residuals), with standard errors from the Jacobian at the optimum."""
    z = np.exp(2j * math.pi * hz / f)

    def residual(p: np.ndarray) -> np.ndarray:
        model = p[0] / (z * (z - 1.0) * (z - p[1]))
        err = np.log(resp / model)
        return np.concatenate([err.real, np.angle(np.exp(1j * err.imag))])

    sol = optimize.least_squares(residual, x0=(1.0, 0.8), bounds=([1e-6, 0.0], [1e3, 0.9999]))
    cov = _covariance(sol.jac, sol.fun)
    return Fit(q=float(sol.x[1]), kp=float(sol.x[0]), q_se=float(np.sqrt(cov[1, 1])),
               kp_se=float(np.sqrt(cov[0, 0])), cov_kp_q=float(cov[0, 1]),
               rms=float(np.sqrt(np.mean(sol.fun ** 2))))


def fit_step(u_amp: float, d: np.ndarray, f: float) -> tuple[Fit, float]:
    """(q, K_P) from the first difference d of an open-loop current step response, fitted as
    b1 (1 - exp(-b2 t)) by Levenberg-Marquardt; also returns b1, the final LSB per period.
    Standard errors: curve_fit's covariance (Jacobian, residual variance), then the delta method
    through q = exp(-b2 / f), K_P = b1 (1 - q) / u_amp."""
    t = np.arange(len(d)) / f

    def model(t: np.ndarray, b1: float, b2: float) -> np.ndarray:
        return b1 * (1.0 - np.exp(-b2 * t))

    (b1, b2), cov_b = optimize.curve_fit(model, t, d, p0=(max(d.max(), 1e-3), 10.0),
                                         method="lm")
    q = math.exp(-b2 / f)
    kp = b1 * (1.0 - q) / u_amp
    # Jacobian of (K_P, q) with respect to (b1, b2)
    jac = np.array([[(1.0 - q) / u_amp, b1 * q / (f * u_amp)], [0.0, -q / f]])
    cov = jac @ cov_b @ jac.T
    rms = float(np.sqrt(np.mean((d - model(t, b1, b2)) ** 2)))
    return Fit(q=q, kp=kp, q_se=float(np.sqrt(cov[1, 1])), kp_se=float(np.sqrt(cov[0, 0])),
               cov_kp_q=float(cov[0, 1]), rms=rms), float(b1)
