# SPDX-License-Identifier: GPL-2.0
# The project's address and maintainer, set here and nowhere else. The
# project has no public home yet: these are placeholders (the reserved
# .example domain), the same everywhere. README.md, packaging/debian/
# control, copyright, changelog, watch and upstream/metadata, the keyring
# package's (packaging/keyring/debian/), the rpm spec and sldctl(8) carry
# written copies; tests/lint/project.sh (make lint) fails when a copy
# differs from the value here, so changing one of them means changing it
# here and following what the test names.
PROJECT_URL := https://sld-compat.example/
PROJECT_VCS := https://sld-compat.example/sld-compat.git
PROJECT_BUGS := https://sld-compat.example/issues
# The signed apt repository (make repo's build/repo/, published here):
# sld-compat.sources' URIs: and README's install steps.
PROJECT_APT := https://sld-compat.example/debian/
PROJECT_MAINTAINER := Seed 7754a82c maintainers <maintainers@users.noreply.a-seed-7754a82c.example>
