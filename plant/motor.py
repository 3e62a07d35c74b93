"""DC motor and shaft referred to the output, solved exactly over each switching segment.

    R_a i + K_e w = v          (resistive winding: no inductance, SPEC 2.3)
    J dw/dt = K_t i - B w - F_c sign(w) - load

With v constant over a segment, w follows an exponential toward its end speed at the rate
(K_t K_e / R_a + B) / J (winding conducting) or B / J (open); the decay factors come from a
table indexed by the segment length in PCLK counts, so CPython and numba compute identical
floats.  Coulomb friction sticks the shaft at w = 0 while the torque stays inside +-F_c: a
speed reversal inside a segment stops at 0 (stiction) unless the torque at rest exceeds F_c,
when the segment is solved with the friction of the new direction (error <= 2 F_c dt / J).
"""

from numba.extending import register_jitable

from servobus.plant import hbridge
from servobus.plant import layout as p


@register_jitable
def advance(params, tables, state, seg_state: int, duty: int, counts: int) -> float:
    """Advance the shaft `counts` PCLK counts in one bridge state; return mean winding current."""
    conducting = seg_state != hbridge.OPEN
    v = hbridge.winding_voltage(seg_state, duty, params)
    r = params[p.R_A]
    if params[p.LOCKED] != 0.0:
        return v / r if conducting else 0.0
    kt = params[p.KT]
    j = params[p.J_TOTAL]
    w0 = state[p.OMEGA]
    net = (kt * v / r if conducting else 0.0) - params[p.LOAD_TORQUE]
    fc = params[p.COULOMB]
    if w0 > 0.0:
        fric = fc
    elif w0 < 0.0:
        fric = -fc
    elif abs(net) <= fc:
        return v / r if conducting else 0.0
    else:
        fric = fc if net > 0.0 else -fc
    if conducting:
        rate = (kt * kt / r + params[p.B_VISC]) / j
        decay = tables[p.TAB_CONDUCTING, counts]
    else:
        rate = params[p.B_VISC] / j
        decay = tables[p.TAB_OPEN, counts]
    dt = counts / params[p.PCLK_HZ]
    w_end = (net - fric) / (j * rate)
    w1 = w_end + (w0 - w_end) * decay
    dtheta = w_end * dt + (w0 - w_end) * (1.0 - decay) / rate
    if w0 != 0.0 and (w1 > 0.0) != (w0 > 0.0):
        if abs(net) <= fc:
            w1 = 0.0
        else:  # the torque at rest beats friction: the shaft turns over, friction flips
            w_end = (net + fric) / (j * rate)
            w1 = w_end + (w0 - w_end) * decay
            dtheta = w_end * dt + (w0 - w_end) * (1.0 - decay) / rate
    state[p.OMEGA] = w1
    state[p.THETA] += dtheta
    if not conducting:
        return 0.0
    return (v - kt * dtheta / dt) / r
