"""The secret families written from the spent held-out set 2 (bench/secrets_heldout2.py), each with
its own values, and the near misses that must stay readable (issue 35)."""

from __future__ import annotations

import pytest

from logsleuth.redact import redact

SECRET = "Vq7Lr2Mx9Kd4Tz8Pn3Wb6Hc1Jf5Gs0Ya"  # 34 characters, mixed case and digits
PW = "t4Kq.Zr8Wm.Lp2xN"  # a password with dots (not a name in code)

LEAKS = {
    "7z glued -p": f"7z x backup.7z -p{PW} -o/tmp/out",
    "az login -p": f"az login -u ops@example.com -p {PW}",
    "curl -u dotted": f"curl -u admin:{PW} http://jenkins:8080/",
    "openssl -passin": f"openssl rsa -in k.pem -passin pass:{PW}",
    "unzip -P": f"unzip -P {PW} export.zip",
    "xfreerdp /p:": f"xfreerdp /v:10.0.0.2 /u:Administrator /p:{PW} /cert:ignore",
    "kubeadm token": "kubeadm join 10.0.0.5:6443 --token q7xk2m.8fj3n5p0a9c2w4z6 --discovery-token-unsafe-skip-ca-verification",
    "mc alias": f"mc alias set prod http://minio:9000 prod-admin {SECRET}",
    "maven dotted": f"<server><passphrase>{PW}</passphrase></server>",
    "wordpress define": "define( 'SECURE_AUTH_SALT', 'k}3[Vq@8 z!Lr2#Mx9^Kd4&Tz8*Pn3(Wb6)Hc1_Jf5+Gs0=Ya7<Ue2>' );",
    "openvpn static key": "-----BEGIN OpenVPN Static key V1-----\n" + "\n".join(["0f1e2d3c4b5a69788796a5b4c3d2e1f0"] * 3)
                          + "\n-----END OpenVPN Static key V1-----",
    "minisign secret key": "untrusted comment: minisign encrypted secret key\nRWRTY0IyQ2xk" + SECRET + SECRET,
    "hex-encoded env": "echo " + b"API_TOKEN=Zq8Lm3Rt7Vx2Kp9Wn4Bd6Hs1Jf5Gc0Yu".hex() + " | xxd -r -p > .env",
    "random value, plain name": f'  "session_code": "{SECRET}",',
    "random flag value": f"./tool push --handshake {SECRET}",
    "random header value": f"curl -H 'X-Partner-Auth: {SECRET}' https://api.example.org/v1",
    "privkey hex": 'privkey = "' + "9f" * 32 + '"',
    "token on its own line": f"here is the token I copied:\n{SECRET}",
    "french prose": f"mot de passe : {PW} (ne le partage pas)",
    "spanish prose": f"la contraseña de prod es {PW}, gracias",
    "portuguese prose": f"a senha do banco é {PW} se precisar",
    "german prose": f"das Passwort ist {PW}",
    "japanese prose": f"本番のパスワードは {PW} です",
    "words between": f"the passphrase I set on the key was {PW}",
    "shell continuation": "export REPLICA_SECRET=Zq8Lm3Rt7Vx2Kp9\\\nWn4Bd6Hs1Jf5Gc0Yu",
}


@pytest.mark.parametrize("name", sorted(LEAKS))
def test_the_family_is_masked(name: str) -> None:
    text = LEAKS[name]
    out, n = redact(text)
    assert n >= 1, out
    for piece in (SECRET[:12], PW, "Zq8Lm3Rt7Vx2", "0f1e2d3c4b5a6978", "9f9f9f9f9f9f", "Vq@8 z!Lr2#Mx9"):
        if piece in text:
            assert piece not in out, out


KEPT = {
    "mangled C++ symbol": "undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
    "kernel name": "found BatchedGemmKernel_Bfloat16_E2m1_Fp32_tile128x16x256_epilogueSmem (sm100f only)",
    "sha256 digest": "--hash=sha256:" + "3f" * 32,
    "git commit": "HEAD is now at 4b825dc642cb6eb9a060e54bf8d69288fbee4904 fix build",
    "uuid": "session 8f14e45f-ceea-467f-a0e2-4f1c6a9b2d3e resumed",
    "dotted code": "password=settings.DATABASE_PASSWORD and dtype=torch.float16",
    "camel call": "model = AutoModelForCausalLM.from_pretrained(path)",
    "class name": "architectures: Qwen2VLForConditionalGeneration",
    "snake name": "test_tensor_parallel_tp2_pp4_dp8_with_cuda_graphs_enabled PASSED",
    "cache path": "/tmp/torchinductor_root/c5/cc5x7kzq2mxvhw3l6n5b4f7yq3dzjpqkqwbv2r4k6fxs.py",
    "prose without value": "the password field was empty",
}


@pytest.mark.parametrize("name", sorted(KEPT))
def test_the_near_miss_stays(name: str) -> None:
    text = KEPT[name]
    assert redact(text) == (text, 0)
