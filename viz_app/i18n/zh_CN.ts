<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN" sourcelanguage="en">
    <context>
        <name>Ablation</name>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="70" />
            <source>Everything is on: this is the intact model.</source>
            <translation>全部开启：这是完整的原始模型。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="54" />
            <source>{kind} L{layer} H{head}</source>
            <translation>{kind} L{layer} H{head}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="68" />
            <source>positional encoding off</source>
            <translation>位置编码已关闭</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="91" />
            <source>Switch heads off to see what the model does without them. A switched-off head adds nothing to its layer's output.</source>
            <translation>关闭一些注意力头，看看没有它们时模型会怎样。被关闭的头对所在层的输出没有任何贡献。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="104" />
            <source>Positional encoding off</source>
            <translation>关闭位置编码</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="105" />
            <source>Run the model without its position information: word order is then invisible to attention</source>
            <translation>在没有位置信息的情况下运行模型：此时注意力看不到词序</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="108" />
            <source>Switch everything back on</source>
            <translation>全部重新开启</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="109" />
            <source>Back to the intact model</source>
            <translation>恢复为完整的原始模型</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="308" />
            <source>probability of the next token</source>
            <translation>下一个词元的概率</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="352" />
            <source>No distributions to compare.</source>
            <translation>没有可比较的分布。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="383" />
            <source>No change in the shown probabilities</source>
            <translation>显示的概率都没有变化</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="166" />
            <source>all heads</source>
            <translation>所有头</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="64" />
            <source>1 head off: {heads}</source>
            <translation>已关闭 1 个头：{heads}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="66" />
            <source>{count} heads off: {heads}</source>
            <translation>已关闭 {count} 个头：{heads}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="151" />
            <source>This model has none.</source>
            <translation>该模型没有这种注意力。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="301" />
            <source>before: intact model</source>
            <translation>消融前：完整模型</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="302" />
            <source>after: with the ablation</source>
            <translation>消融后</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="386" />
            <source>Largest change: {token} {before} → {after}</source>
            <translation>变化最大：{token} {before} → {after}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="167" />
            <source>Switch every head of layer {layer} off (or back on)</source>
            <translation>关闭（或重新开启）第 {layer} 层的所有头</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="153" />
            <source>layer {layer}</source>
            <translation>第 {layer} 层</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="157" />
            <source>H{head}</source>
            <translation>H{head}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="158" />
            <source>{name}: click to switch this head off (or back on)</source>
            <translation>{name}：点击关闭（或重新开启）这个头</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="335" />
            <source>before: {text}</source>
            <translation>消融前：{text}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ablation.py" line="338" />
            <source>after: {text}</source>
            <translation>消融后：{text}</translation>
        </message>
        <message>
            <source>encoder</source>
            <translation type="vanished">编码器</translation>
        </message>
        <message>
            <source>decoder</source>
            <translation type="vanished">解码器</translation>
        </message>
        <message>
            <source>cross</source>
            <translation type="vanished">交叉</translation>
        </message>
    </context>
    <context>
        <name>About</name>
        <message>
            <location filename="../../viz_app/dialogs/about.py" line="43" />
            <source>not installed</source>
            <translation>未安装</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/about.py" line="63" />
            <source>no model loaded yet</source>
            <translation>尚未加载模型</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/about.py" line="77" />
            <source>About Attention Scope</source>
            <translation>关于 Attention Scope</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/about.py" line="65" />
            <source>Attention Scope</source>
            <translation>Attention Scope</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/about.py" line="67" />
            <source>Watch an encoder-decoder Transformer think: every attention map, step by step.</source>
            <translation>看编码器-解码器 Transformer 如何“思考”：逐步查看每一张注意力图。</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/about.py" line="66" />
            <source>Version {version}</source>
            <translation>版本 {version}</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/about.py" line="68" />
            <source>Device: {device}</source>
            <translation>设备：{device}</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/about.py" line="70" />
            <source>License: {license}</source>
            <translation>许可证：{license}</translation>
        </message>
    </context>
    <context>
        <name>AerMap</name>
        <message>
            <location filename="../../viz_app/widgets/aer_map.py" line="143" />
            <source>head mean</source>
            <translation>各头平均</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/aer_map.py" line="144" />
            <source>not defined</source>
            <translation>无定义</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/aer_map.py" line="100" />
            <source>Load gold links for this sentence pair to see each head's alignment error rate</source>
            <translation>为这对句子载入标准对齐，就能看到每个头的对齐错误率</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/aer_map.py" line="108" />
            <source>mean</source>
            <translation>平均</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/aer_map.py" line="145" />
            <source>Layer {layer}, {head}: AER {value}</source>
            <translation>第 {layer} 层，{head}：AER {value}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/aer_map.py" line="143" />
            <source>head {head}</source>
            <translation>头 {head}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/aer_map.py" line="108" />
            <source>H{head}</source>
            <translation>H{head}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/aer_map.py" line="118" />
            <source>L{layer}</source>
            <translation>L{layer}</translation>
        </message>
    </context>
    <context>
        <name>AlignmentLines</name>
        <message>
            <location filename="../../viz_app/widgets/alignment_lines.py" line="126" />
            <source>Line width and darkness = attention weight · source on top, target below</source>
            <translation>线越粗、颜色越深，注意力权重越大 · 上排是源句，下排是译文</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/alignment_lines.py" line="202" />
            <source>source</source>
            <translation>源句</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/alignment_lines.py" line="202" />
            <source>target</source>
            <translation>译文</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/alignment_lines.py" line="170" />
            <source>No cross-attention to show yet: type a sentence.</source>
            <translation>还没有交叉注意力可以显示：请先输入一个句子。</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/alignment_binding.py" line="56" />
            <source>Step forward: each generated token draws its lines to the source.</source>
            <translation>前进一步：每生成一个词元，就会画出它连向源句的线。</translation>
        </message>
    </context>
    <context>
        <name>AlignmentPanel</name>
        <message>
            <location filename="../../viz_app/widgets/alignment_panel.py" line="37" />
            <source>Load gold file…</source>
            <translation>载入标准对齐文件…</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/alignment_panel.py" line="38" />
            <source>A Pharaoh file: one line of links per sentence pair</source>
            <translation>Pharaoh 格式文件：每对句子一行对齐</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/alignment_panel.py" line="41" />
            <source>line </source>
            <translation>文件第 </translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/alignment_panel.py" line="42" />
            <source> of the file</source>
            <translation> 行</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/alignment_panel.py" line="44" />
            <source>Which line of the gold file belongs to the sentence pair on screen</source>
            <translation>标准对齐文件中的哪一行对应当前这对句子</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/alignment_panel.py" line="53" />
            <source>or type the gold links: 0-0 1-2 2?3</source>
            <translation>或直接输入标准对齐：0-0 1-2 2?3</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/alignment_panel.py" line="54" />
            <source>Source word - target word, counted from 0; '?' (or i-j-P) marks a possible link, '-' a sure one</source>
            <translation>源词-目标词，从 0 开始编号；“-”表示确定对齐，“?”（或 i-j-P）表示可能对齐</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/alignment_panel.py" line="57" />
            <source>Read each target word where it is the decoder's input</source>
            <translation>在目标词作为解码器输入的那一行读取</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/alignment_panel.py" line="58" />
            <source>Off: the row that predicts the word (the usual choice). On: the row one step later, where the word is read</source>
            <translation>关闭：读取预测该词的那一行（通常的做法）。打开：读取晚一步、该词作为输入被读入的那一行</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/alignment_panel.py" line="78" />
            <source>Gold file: {name} ({count} lines)</source>
            <translation>标准对齐文件：{name}（共 {count} 行）</translation>
        </message>
    </context>
    <context>
        <name>AlignmentTools</name>
        <message>
            <location filename="../../viz_app/window/alignment_tools.py" line="185" />
            <source>Open a report folder</source>
            <translation>打开报告文件夹</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/alignment_tools.py" line="240" />
            <source>Gold alignments (Pharaoh)</source>
            <translation>标准对齐（Pharaoh 格式）</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/alignment_tools.py" line="241" />
            <source>Alignments (*.txt *.align *.talp *.wa);;All files (*)</source>
            <translation>对齐文件 (*.txt *.align *.talp *.wa);;所有文件 (*)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/alignment_tools.py" line="151" />
            <source>the head mean</source>
            <translation>各头平均</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/alignment_tools.py" line="161" />
            <source>The target was generated: gold links belong to a typed target</source>
            <translation>目标句是模型生成的；标准对齐针对的是输入的目标句</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/alignment_tools.py" line="129" />
            <source>This sentence is too long to align every head at once</source>
            <translation>句子太长，无法一次对齐所有注意力头</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/alignment_tools.py" line="119" />
            <source>Run a sentence pair to compare its attention with the gold links</source>
            <translation>运行一对句子，就能把它的注意力和标准对齐作比较</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/alignment_tools.py" line="152" />
            <source>head {head}</source>
            <translation>头 {head}</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/alignment_tools.py" line="153" />
            <source>Best: layer {layer}, {head}, AER {value:.0f} %</source>
            <translation>最佳：第 {layer} 层，{head}，AER {value:.0f}%</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/alignment_tools.py" line="158" />
            <source>Links past the sentence ({source} source and {target} target words): {links}</source>
            <translation>超出句子范围的对齐（源句 {source} 个词，目标句 {target} 个词）：{links}</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/alignment_tools.py" line="198" />
            <source>Cannot open the report: {error}</source>
            <translation>无法打开报告：{error}</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/alignment_tools.py" line="84" />
            <source>more than {count:,} lines</source>
            <translation>超过 {count:,} 行</translation>
        </message>
    </context>
    <context>
        <name>Compare</name>
        <message>
            <location filename="../../viz_app/widgets/compare_view.py" line="56" />
            <source>Sentence B, e.g. the cats see the dog</source>
            <translation>句子 B，例如 the cats see the dog</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/compare_view.py" line="58" />
            <source>Target B (optional; empty: the target of A, or the model translates)</source>
            <translation>目标 B（可选；留空则沿用 A 的目标，或由模型翻译）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/compare_view.py" line="59" />
            <source>Compare with the current sentence</source>
            <translation>与当前句子比较</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/compare_view.py" line="85" />
            <source>Type sentence B above and press Compare: A (the sentence in the window), B and A − B of the map you are looking at appear here, side by side.</source>
            <translation>在上方输入句子 B，然后点击“与当前句子比较”：A（窗口中的句子）、B 以及当前所看注意力图的 A − B 会并排显示在这里。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/compare_view.py" line="135" />
            <source>A − B (red: A attends more, blue: B does)</source>
            <translation>A − B（红：A 关注更多，蓝：B 关注更多）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/compare_view.py" line="152" />
            <source>; </source>
            <translation>；</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/compare_view.py" line="160" />
            <source>step {step}: A chose {a} ({la}), B chose {b} ({lb})</source>
            <translation>第 {step} 步：A 选了 {a}（{la}），B 选了 {b}（{lb}）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/compare_view.py" line="132" />
            <source>A − B is not drawn for this attention: {reason}.</source>
            <translation>这种注意力不画 A − B：{reason}。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/compare_view.py" line="149" />
            <source>the sources have {a} and {b} tokens</source>
            <translation>两个源句分别有 {a} 和 {b} 个词元</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/compare_view.py" line="151" />
            <source>the targets have {a} and {b} positions</source>
            <translation>两个目标分别有 {a} 和 {b} 个位置</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/compare_view.py" line="165" />
            <source>From step {step} on, A and B continue different prefixes: give both the same target to compare like for like.</source>
            <translation>从第 {step} 步起，A 和 B 的前缀已不相同：给两者相同的目标，才能逐项对比。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/compare_view.py" line="128" />
            <source>{side}: {sentence}</source>
            <translation>{side}：{sentence}</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/compare_sentences.py" line="82" />
            <source>Compare two &amp;sentences…</source>
            <translation>比较两个句子(&amp;S)…</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/compare_sentences.py" line="84" />
            <source>Run a second sentence beside the current one and show A, B and A − B of every map</source>
            <translation>在当前句子旁再运行一个句子，显示每张图的 A、B 和 A − B</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/compare_sentences.py" line="45" />
            <source>Compare two sentences</source>
            <translation>比较两个句子</translation>
        </message>
        <message>
            <source>Compare &amp;two sentences…</source>
            <translation type="vanished">比较两个句子(&amp;T)…</translation>
        </message>
        <message>
            <source>Compare t&amp;wo sentences…</source>
            <translation type="vanished">比较两个句子(&amp;W)…</translation>
        </message>
    </context>
    <context>
        <name>Controls</name>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="77" />
            <source>Shade cells blocked because a source token is &lt;pad&gt;</source>
            <translation>用阴影标出因源端词元为 &lt;pad&gt; 而被屏蔽的单元格</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="78" />
            <source>Shade cells blocked because a target token is &lt;pad&gt;</source>
            <translation>用阴影标出因目标端词元为 &lt;pad&gt; 而被屏蔽的单元格</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="79" />
            <source>Shade cells blocked because a decoder position may not look at later positions</source>
            <translation>用阴影标出因解码器位置不能看到其后位置而被屏蔽的单元格</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="80" />
            <source>Shade every blocked cell (all masks together)</source>
            <translation>用阴影标出所有被屏蔽的单元格（全部掩码合并）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="50" />
            <source>greedy</source>
            <translation>贪心解码</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="50" />
            <source>sampling</source>
            <translation>采样</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="50" />
            <source>beam search</source>
            <translation>束搜索</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="54" />
            <source>weights</source>
            <translation>权重</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="54" />
            <source>scores before softmax</source>
            <translation>softmax 前的分数</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="72" />
            <source>0.5 steps/s</source>
            <translation>0.5 步/秒</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="72" />
            <source>1 step/s</source>
            <translation>1 步/秒</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="72" />
            <source>2 steps/s</source>
            <translation>2 步/秒</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="73" />
            <source>4 steps/s</source>
            <translation>4 步/秒</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="73" />
            <source>8 steps/s</source>
            <translation>8 步/秒</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="176" />
            <source>off</source>
            <comment>a spin box at its lowest value: the feature is disabled</comment>
            <translation>关闭</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="100" />
            <source>Model: the bundled ones, or Open… a .safetensors checkpoint</source>
            <translation>模型：内置模型，或用“打开…”载入一个 .safetensors 检查点</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="161" />
            <source>type a sentence in the source language</source>
            <translation>输入一个源语言句子</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="166" />
            <source>leave empty to let the model translate</source>
            <translation>留空则由模型自行翻译</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="168" />
            <source>Type a translation to teacher-force it; leave empty to let the model generate</source>
            <translation>输入译文即以教师强制方式送入解码器；留空则由模型自行生成</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="175" />
            <source>How the model chooses each next token when no target is typed</source>
            <translation>未输入目标句时，模型如何选择每一个下一个词元</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="178" />
            <source>Sampling temperature: below 1 sharper, above 1 flatter</source>
            <translation>采样温度：小于 1 分布更尖锐，大于 1 分布更平坦</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="181" />
            <source>Sample only among the k most likely tokens (off = all)</source>
            <translation>只在概率最高的 k 个词元中采样（关闭 = 全部词元）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="183" />
            <source>Nucleus sampling: the smallest set of tokens whose probability reaches p</source>
            <translation>核采样（nucleus sampling）：在累计概率达到 p 的最小词元集合中采样</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="185" />
            <source>Random seed of the sampler: the same seed gives the same sample</source>
            <translation>采样器的随机种子：相同的种子得到相同的采样结果</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="187" />
            <source>Number of hypotheses kept at each step</source>
            <translation>每一步保留的候选序列数（束宽）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="190" />
            <source>Add &lt;pad&gt; tokens to the source up to N tokens, to see the source-padding mask at work</source>
            <translation>用 &lt;pad&gt; 词元把源句补足到 N 个词元，以观察源端填充掩码的作用</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="193" />
            <source>Add &lt;pad&gt; decoder inputs up to N, to see the target-padding mask at work</source>
            <translation>用 &lt;pad&gt; 把解码器输入补足到 N 个，以观察目标端填充掩码的作用</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="398" />
            <source>Decoding step: at step t the decoder has produced t tokens</source>
            <translation>解码步：第 t 步时，解码器已生成 t 个词元</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="409" />
            <source>Playback speed</source>
            <translation>播放速度</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="462" />
            <source>What the heatmap shows: the attention weights, the scores before the softmax, or an analysis (hover over one to read what it measures)</source>
            <translation>热图显示的内容：注意力权重、softmax 之前的分数，或某种分析（把鼠标停在选项上可查看它衡量什么）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="475" />
            <source>L</source>
            <comment>prefix of a layer number: L0, L1…</comment>
            <translation>L</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="476" />
            <source>Layer (0 = closest to the input)</source>
            <translation>层（0 = 最靠近输入的一层）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="479" />
            <source>One head, or the mean of all heads of the layer</source>
            <translation>单个注意力头，或该层所有头的平均</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="483" />
            <source>log scale</source>
            <translation>对数刻度</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="484" />
            <source>Colour by log(weight): makes small weights visible</source>
            <translation>按 log(权重) 着色：让很小的权重也清晰可见</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="593" />
            <source>Dismiss</source>
            <translation>关闭</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="117" />
            <source>Open…</source>
            <translation>打开…</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="212" />
            <source>Sou&amp;rce</source>
            <translation>源句(&amp;R)</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="215" />
            <source>&amp;Target</source>
            <translation>目标句(&amp;T)</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="227" />
            <source>M&amp;odel</source>
            <translation>模型(&amp;O)</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="227" />
            <source>&amp;Decoding</source>
            <translation>解码(&amp;D)</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="228" />
            <source>temp.</source>
            <comment>sampling temperature</comment>
            <translation>温度</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="229" />
            <source>top-k</source>
            <translation>top-k</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="229" />
            <source>top-p</source>
            <translation>top-p</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="230" />
            <source>seed</source>
            <translation>种子</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="230" />
            <source>beams</source>
            <translation>束宽</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="231" />
            <source>pad source to</source>
            <translation>源端填充至</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="231" />
            <source>pad target to</source>
            <translation>目标端填充至</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="340" />
            <source>Translation: {text}</source>
            <translation>译文：{text}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="371" />
            <source>teacher forcing the typed target</source>
            <translation>教师强制：使用输入的目标句</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="441" />
            <source>step {step} / {total}</source>
            <translation>第 {step} / {total} 步</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="491" />
            <source>Sho&amp;w</source>
            <translation>显示(&amp;W)</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="491" />
            <source>&amp;Attention</source>
            <translation>注意力(&amp;A)</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="492" />
            <source>La&amp;yer</source>
            <translation>层(&amp;Y)</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="493" />
            <source>H&amp;ead</source>
            <translation>头(&amp;E)</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="493" />
            <source>&amp;Colours</source>
            <translation>配色(&amp;C)</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="496" />
            <source>Masks:</source>
            <translation>掩码：</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="531" />
            <source>mean of heads</source>
            <translation>各头平均</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="110" />
            <source>(no model)</source>
            <translation>（无模型）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="342" />
            <source>as its grammar translates it</source>
            <translation>与语法给出的译文一致</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="553" />
            <source>Not for a sentence this long: its maps are computed one at a time when shown</source>
            <translation>句子过长时不可用：其注意力图只在显示时逐张计算</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="533" />
            <source>H{head}</source>
            <comment>short for head N</comment>
            <translation>头 {head}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/controls.py" line="344" />
            <source>its grammar: {text}</source>
            <translation>语法给出的译文：{text}</translation>
        </message>
        <message>
            <source>&amp;Source</source>
            <translation type="vanished">源句(&amp;S)</translation>
        </message>
        <message>
            <source>&amp;Model</source>
            <translation type="vanished">模型(&amp;M)</translation>
        </message>
        <message>
            <source>&amp;Head</source>
            <translation type="vanished">头(&amp;H)</translation>
        </message>
        <message>
            <source>What the heatmap shows: the attention weights, the scores before the softmax, the attention rollout from the source to each target position, how much each token moved the chosen token (attribution), or what each attended token actually added (weight × size of its transformed value)</source>
            <translation type="vanished">热力图显示的内容：注意力权重、softmax 之前的分数、从源句到每个目标位置的注意力 rollout、每个词元对所选词元的推动有多大（归因），或每个被关注的词元实际加进去了多少（权重 × 其变换后值向量的大小）</translation>
        </message>
        <message>
            <source>rollout</source>
            <translation type="vanished">注意力展开</translation>
        </message>
        <message>
            <source>attribution (integrated gradients)</source>
            <translation type="vanished">归因（积分梯度）</translation>
        </message>
        <message>
            <source>contributions ‖α·f(x)‖</source>
            <translation type="vanished">贡献 ‖α·f(x)‖</translation>
        </message>
        <message>
            <source>value zeroing</source>
            <translation type="vanished">值置零</translation>
        </message>
        <message>
            <source>What the heatmap shows: the attention weights, the scores before the softmax, or the attention rollout from the source to each target position</source>
            <translation type="vanished">热力图显示什么：注意力权重、softmax 之前的分数，或从源句到每个目标位置的注意力展开（rollout）</translation>
        </message>
    </context>
    <context>
        <name>Explain</name>
        <message>
            <location filename="../../viz_app/dialogs/explain.py" line="16" />
            <source>Attention: what the heatmap shows</source>
            <translation>注意力：热力图显示了什么</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/explain.py" line="17" />
            <source>&lt;p&gt;Every token is turned into three vectors by learned matrices: a &lt;b&gt;query&lt;/b&gt;
q = x·W&lt;sub&gt;Q&lt;/sub&gt; (what this token is looking for), a &lt;b&gt;key&lt;/b&gt; k = x·W&lt;sub&gt;K&lt;/sub&gt; (what it offers to be
found by) and a &lt;b&gt;value&lt;/b&gt; v = x·W&lt;sub&gt;V&lt;/sub&gt; (what it passes on).&lt;/p&gt;
&lt;p&gt;The weights are the &lt;b&gt;scaled dot product&lt;/b&gt;:&lt;/p&gt;
&lt;p align="center"&gt;&lt;b&gt;A = softmax( Q·K&lt;sup&gt;T&lt;/sup&gt; / √d&lt;sub&gt;k&lt;/sub&gt; + M )&lt;/b&gt;, &amp;nbsp; output = A·V&lt;/p&gt;
&lt;p&gt;Each &lt;b&gt;row&lt;/b&gt; of the heatmap is one query token, each &lt;b&gt;column&lt;/b&gt; one key token; a cell is how much
that query reads from that key. Every row sums to 1 (softmax), so a row is a distribution over the keys.
M is 0 where attention is allowed and −∞ where a mask blocks it, so blocked cells become exactly 0.&lt;/p&gt;
&lt;p&gt;&lt;b&gt;Why divide by √d&lt;sub&gt;k&lt;/sub&gt;?&lt;/b&gt; With d&lt;sub&gt;k&lt;/sub&gt;-dimensional q and k whose components have
variance 1, q·k has variance d&lt;sub&gt;k&lt;/sub&gt;. Large scores push the softmax into a nearly one-hot regime
where its gradients vanish; dividing by √d&lt;sub&gt;k&lt;/sub&gt; brings the variance back to 1.&lt;/p&gt;
&lt;p&gt;The three kinds: &lt;b&gt;encoder self-attention&lt;/b&gt; (source tokens read each other, all directions);
&lt;b&gt;decoder self-attention&lt;/b&gt; (target tokens read earlier target tokens only: the causal mask);
&lt;b&gt;cross-attention&lt;/b&gt; (each target position reads the encoder's output for every source token —
this is where a translation model looks up which source word it is translating).&lt;/p&gt;
&lt;p&gt;&lt;b&gt;Teacher forcing vs generation.&lt;/b&gt; With a typed target, the decoder is fed the correct previous
tokens (as in training) and you see what it predicts at each position. With the target empty, the
model generates: each step feeds back its own choice. At step t the decoder has computed t positions;
rows below are not computed yet.&lt;/p&gt;</source>
            <translation>&lt;p&gt;每个词元都会经过学到的矩阵变换成三个向量：&lt;b&gt;查询&lt;/b&gt; q = x·W&lt;sub&gt;Q&lt;/sub&gt;（这个词元在寻找什么）、&lt;b&gt;键&lt;/b&gt; k = x·W&lt;sub&gt;K&lt;/sub&gt;（它凭什么被别的词元找到）和&lt;b&gt;值&lt;/b&gt; v = x·W&lt;sub&gt;V&lt;/sub&gt;（它要传递出去的内容）。&lt;/p&gt;&lt;p&gt;注意力权重由&lt;b&gt;缩放点积&lt;/b&gt;得到：&lt;/p&gt;&lt;p align="center"&gt;&lt;b&gt;A = softmax( Q·K&lt;sup&gt;T&lt;/sup&gt; / √d&lt;sub&gt;k&lt;/sub&gt; + M )&lt;/b&gt;, &amp;nbsp; 输出 = A·V&lt;/p&gt; &lt;p&gt;热力图的每一&lt;b&gt;行&lt;/b&gt;对应一个查询词元，每一&lt;b&gt;列&lt;/b&gt;对应一个键词元；一个单元格表示这个查询从这个键读取了多少信息。每一行的和都为 1（softmax），所以一行就是键上的一个概率分布。M 在允许注意的位置为 0，在被掩码屏蔽的位置为 −∞，因此被屏蔽的单元格恰好为 0。&lt;/p&gt;&lt;p&gt;&lt;b&gt;为什么要除以 √d&lt;sub&gt;k&lt;/sub&gt;？&lt;/b&gt;若 q 和 k 都是 d&lt;sub&gt;k&lt;/sub&gt; 维向量，且各分量的方差为 1，则 q·k 的方差为 d&lt;sub&gt;k&lt;/sub&gt;。分数过大会把 softmax 推入近乎 one-hot 的区域，梯度随之消失；除以 √d&lt;sub&gt;k&lt;/sub&gt; 可以把方差拉回到 1。&lt;/p&gt;&lt;p&gt;三种注意力：&lt;b&gt;编码器自注意力&lt;/b&gt;（源词元之间相互读取，不限方向）；&lt;b&gt;解码器自注意力&lt;/b&gt;（目标词元只能读取它之前的目标词元：这就是因果掩码）；&lt;b&gt;交叉注意力&lt;/b&gt;（每个目标位置读取编码器为每个源词元给出的输出——翻译模型正是在这里查找自己此刻在翻译哪个源词）。&lt;/p&gt;&lt;p&gt;&lt;b&gt;教师强制与自行生成。&lt;/b&gt;输入了目标句时，解码器得到的是正确的前序词元（与训练时相同），你看到的是它在每个位置上的预测。目标句为空时，模型自行生成：每一步都把自己选出的词元作为下一步的输入。在第 t 步，解码器已计算了 t 个位置；其下方的行尚未计算。&lt;/p&gt;</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/explain.py" line="38" />
            <source>Masks: which cells are blocked, and why</source>
            <translation>掩码：哪些单元格被屏蔽，以及为什么</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/explain.py" line="39" />
            <source>&lt;p&gt;A mask says, for each query and key, whether attention is allowed
(here: &lt;b&gt;True = may attend&lt;/b&gt;). Blocked scores are set to −∞ before the softmax, so their weight is exactly 0.&lt;/p&gt;
&lt;ul&gt;
&lt;li&gt;&lt;b&gt;Source padding&lt;/b&gt;: sentences in a batch are padded with &lt;tt&gt;&amp;lt;pad&amp;gt;&lt;/tt&gt; to the same length.
Pad tokens carry no meaning, so no query may read them (their columns are blocked) and their own rows
are ignored.&lt;/li&gt;
&lt;li&gt;&lt;b&gt;Target padding&lt;/b&gt;: the same for the decoder's input.&lt;/li&gt;
&lt;li&gt;&lt;b&gt;Causal (look-ahead) mask&lt;/b&gt;: in decoder self-attention, position t may read positions 0…t only.
During training the whole target is fed at once; without this mask the model could copy the answer
from the future. It makes training match generation, where the future does not exist yet.&lt;/li&gt;
&lt;li&gt;&lt;b&gt;Combined&lt;/b&gt;: the logical AND of the masks that apply to this kind of attention — what the model
actually used.&lt;/li&gt;
&lt;/ul&gt;
&lt;p&gt;A single sentence has no padding of its own: use “pad source / target to N” to add
&lt;tt&gt;&amp;lt;pad&amp;gt;&lt;/tt&gt; tokens and see the padding masks at work.&lt;/p&gt;</source>
            <translation>&lt;p&gt;掩码规定了每一对查询和键之间是否允许注意（这里约定&lt;b&gt;掩码值为真 = 可以注意&lt;/b&gt;）。被屏蔽的分数在 softmax 之前被设为 −∞，因此它们的权重恰好为 0。&lt;/p&gt;&lt;ul&gt; &lt;li&gt;&lt;b&gt;源端填充&lt;/b&gt;：同一批次中的句子会用 &lt;tt&gt;&amp;lt;pad&amp;gt;&lt;/tt&gt; 填充到相同长度。填充词元没有任何含义，所以任何查询都不能读取它们（它们所在的列被屏蔽），它们自己的行也会被忽略。&lt;/li&gt;&lt;li&gt;&lt;b&gt;目标端填充&lt;/b&gt;：对解码器的输入做同样的处理。&lt;/li&gt;&lt;li&gt;&lt;b&gt;因果（前瞻）掩码&lt;/b&gt;：在解码器自注意力中，位置 t 只能读取位置 0…t。训练时整个目标句是一次性送入的；没有这个掩码，模型就能从“未来”抄答案。它让训练与生成保持一致——生成时，未来还不存在。&lt;/li&gt;&lt;li&gt;&lt;b&gt;合并&lt;/b&gt;：适用于这种注意力的所有掩码的逻辑与（AND）——也就是模型实际使用的掩码。&lt;/li&gt;&lt;/ul&gt; &lt;p&gt;单个句子本身没有填充：用“源端填充至 / 目标端填充至 N”添加 &lt;tt&gt;&amp;lt;pad&amp;gt;&lt;/tt&gt; 词元，就能看到填充掩码的作用。&lt;/p&gt;</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/explain.py" line="56" />
            <source>Multi-head attention: all heads at once</source>
            <translation>多头注意力：同时查看所有头</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/explain.py" line="57" />
            <source>&lt;p&gt;A model with h heads splits d&lt;sub&gt;model&lt;/sub&gt; into h smaller subspaces of
d&lt;sub&gt;k&lt;/sub&gt; = d&lt;sub&gt;model&lt;/sub&gt;/h dimensions. Each head has its own W&lt;sub&gt;Q&lt;/sub&gt;, W&lt;sub&gt;K&lt;/sub&gt;, W&lt;sub&gt;V&lt;/sub&gt;
and computes its own attention map; the h outputs are concatenated and mixed by W&lt;sub&gt;O&lt;/sub&gt;.&lt;/p&gt;
&lt;p&gt;&lt;b&gt;What multi-head buys:&lt;/b&gt; one softmax can only form one weighted average per query. Several heads
can attend to different things at the same time — one to the previous token, one to the aligned source
word, one to the end of the sentence — at about the cost of a single full-size head.&lt;/p&gt;
&lt;p&gt;The overview shows every layer (rows) × head (columns) for the selected kind; click a tile to open
it. Lower layers often attend to neighbours; higher layers to the aligned word.&lt;/p&gt;
&lt;p&gt;&lt;b&gt;Grouped-query (GQA) and multi-query (MQA) attention&lt;/b&gt; keep one query per head but share keys and
values: with g groups, heads in the same group read the same K and V (g = 1 is multi-query). The
maps still differ per head because the queries differ, but the key/value cache is h/g times smaller,
which makes generation faster and lighter on memory.&lt;/p&gt;</source>
            <translation>&lt;p&gt;有 h 个头的模型把 d&lt;sub&gt;model&lt;/sub&gt; 拆分成 h 个更小的子空间，每个子空间有 d&lt;sub&gt;k&lt;/sub&gt; = d&lt;sub&gt;model&lt;/sub&gt;/h 维。每个头都有自己的 W&lt;sub&gt;Q&lt;/sub&gt;、W&lt;sub&gt;K&lt;/sub&gt;、W&lt;sub&gt;V&lt;/sub&gt;，并计算自己的注意力图；h 个头的输出拼接起来，再由 W&lt;sub&gt;O&lt;/sub&gt; 混合。&lt;/p&gt;&lt;p&gt;&lt;b&gt;多头带来了什么：&lt;/b&gt;一个 softmax 对每个查询只能形成一个加权平均。多个头可以同时关注不同的东西——一个关注前一个词元，一个关注对齐的源词，一个关注句尾——而总计算量与单个全尺寸的头相当。&lt;/p&gt;&lt;p&gt;总览图按所选的注意力类型显示每一层（行）× 每个头（列）；点击一个小图即可打开它。较低的层常常关注相邻的词元；较高的层则关注对齐的词。&lt;/p&gt;&lt;p&gt;&lt;b&gt;分组查询注意力（GQA）与多查询注意力（MQA）&lt;/b&gt;为每个头保留各自的查询，但共享键和值：分成 g 组时，同一组中的头读取相同的 K 和 V（g = 1 即多查询注意力）。由于查询不同，各头的注意力图仍然各不相同，但键/值缓存缩小为原来的 g/h（即小了 h/g 倍），从而让生成更快、更省内存。&lt;/p&gt;</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/explain.py" line="71" />
            <source>Positional encoding: how order gets in</source>
            <translation>位置编码：顺序信息如何进入模型</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/explain.py" line="72" />
            <source>&lt;p&gt;Attention itself ignores order: shuffle the tokens and every weight moves along
with them. So a position vector is added to each token embedding.&lt;/p&gt;
&lt;p&gt;&lt;b&gt;Sinusoidal encoding&lt;/b&gt; (the original Transformer):&lt;/p&gt;
&lt;p align="center"&gt;PE(pos, 2i) = sin(pos / 10000&lt;sup&gt;2i/d&lt;/sup&gt;), &amp;nbsp; PE(pos, 2i+1) = cos(pos / 10000&lt;sup&gt;2i/d&lt;/sup&gt;)&lt;/p&gt;
&lt;p&gt;Each pair of dimensions is a point turning on a circle at its own frequency: fast in the first
dimensions, very slow in the last ones, like the hands of a clock. Together they give every position
a unique pattern.&lt;/p&gt;
&lt;p&gt;&lt;b&gt;Relative offsets:&lt;/b&gt; moving k positions rotates every pair by a fixed angle, so PE(pos + k) is a
linear function of PE(pos) that depends only on k. That is why the similarity PE·PE&lt;sup&gt;T&lt;/sup&gt; depends
only on the distance between two positions (bright diagonal band) — the model can learn to attend
“one word back” wherever it is.&lt;/p&gt;
&lt;p&gt;&lt;b&gt;Learned&lt;/b&gt; tables are trained like embeddings (they cannot go beyond the trained length).
A &lt;b&gt;relative bias&lt;/b&gt; (as in T5) instead adds a learned number per head and distance to the scores.&lt;/p&gt;
&lt;p&gt;The marked region is where the current sentence's tokens sit.&lt;/p&gt;</source>
            <translation>&lt;p&gt;注意力本身不考虑顺序：把词元打乱，每个权重也只是跟着一起移动。因此要给每个词元的嵌入加上一个位置向量。&lt;/p&gt;&lt;p&gt;&lt;b&gt;正弦位置编码&lt;/b&gt;（原始 Transformer 的做法）：&lt;/p&gt;&lt;p align="center"&gt;PE(pos, 2i) = sin(pos / 10000&lt;sup&gt;2i/d&lt;/sup&gt;), &amp;nbsp; PE(pos, 2i+1) = cos(pos / 10000&lt;sup&gt;2i/d&lt;/sup&gt;)&lt;/p&gt; &lt;p&gt;每一对维度都是一个以自身频率在圆上旋转的点：前面的维度转得快，后面的维度转得很慢，就像时钟的指针。它们合在一起，给每个位置一个独一无二的模式。&lt;/p&gt;&lt;p&gt;&lt;b&gt;相对偏移：&lt;/b&gt;移动 k 个位置相当于把每一对维度旋转一个固定的角度，因此 PE(pos + k) 是 PE(pos) 的线性函数，且只依赖于 k。这就是为什么相似度 PE·PE&lt;sup&gt;T&lt;/sup&gt; 只取决于两个位置之间的距离（明亮的对角带）——无论身处句中何处，模型都能学会关注“往回数一个词”。&lt;/p&gt;&lt;p&gt;&lt;b&gt;可学习&lt;/b&gt;的位置表像嵌入一样被训练（无法超出训练时的长度）。&lt;b&gt;相对位置偏置&lt;/b&gt;（如 T5）则是按头和距离，在分数上加一个可学习的数。&lt;/p&gt;&lt;p&gt;标出的区域是当前句子的词元所在的位置。&lt;/p&gt;</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/explain.py" line="88" />
            <source>Next token: what the model predicts</source>
            <translation>下一个词元：模型预测了什么</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/explain.py" line="89" />
            <source>&lt;p&gt;At each position the decoder's last hidden state is projected onto the target
vocabulary (logits) and turned into probabilities with a softmax. The bars show the most probable
next tokens at the current step.&lt;/p&gt;
&lt;p&gt;&lt;b&gt;Greedy&lt;/b&gt; takes the most probable token. &lt;b&gt;Sampling&lt;/b&gt; draws from the distribution: the
&lt;b&gt;temperature&lt;/b&gt; divides the logits (below 1 sharper, above 1 flatter), &lt;b&gt;top-k&lt;/b&gt; keeps the k
most probable tokens, &lt;b&gt;top-p&lt;/b&gt; keeps the smallest set whose probability reaches p. &lt;b&gt;Beam search&lt;/b&gt;
keeps the w best partial translations (by summed log-probability) and extends each of them.&lt;/p&gt;
&lt;p&gt;With a typed target (&lt;b&gt;teacher forcing&lt;/b&gt;) the correct token is highlighted with its probability
and rank: you see how sure the model was of the right answer, even where it would have chosen another.&lt;/p&gt;</source>
            <translation>&lt;p&gt;在每个位置，解码器最后的隐藏状态被投影到目标词表上（得到 logits），再经 softmax 变成概率。条形图显示当前步中概率最高的若干个下一个词元。&lt;/p&gt;&lt;p&gt;&lt;b&gt;贪心解码&lt;/b&gt;选取概率最高的词元。&lt;b&gt;采样&lt;/b&gt;则从分布中随机抽取：&lt;b&gt;温度&lt;/b&gt;用来除 logits（小于 1 分布更尖锐，大于 1 更平坦），&lt;b&gt;top-k&lt;/b&gt; 只保留概率最高的 k 个词元，&lt;b&gt;top-p&lt;/b&gt; 保留累计概率达到 p 的最小词元集合。&lt;b&gt;束搜索&lt;/b&gt;保留 w 个最好的部分译文（按对数概率之和排序），并分别扩展它们。&lt;/p&gt;&lt;p&gt;输入了目标句时（&lt;b&gt;教师强制&lt;/b&gt;），正确的词元会连同它的概率和排名一起高亮显示：即使模型本来会选另一个词元，你也能看到它对正确答案有多大把握。&lt;/p&gt;</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/explain.py" line="100" />
            <source>Scores: what the softmax saw</source>
            <translation>分数：softmax 看到了什么</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/explain.py" line="101" />
            <source>&lt;p&gt;The scores are the numbers before the softmax:
S = Q·K&lt;sup&gt;T&lt;/sup&gt;/√d&lt;sub&gt;k&lt;/sub&gt; (+ a position bias, if the model has one). Hatched cells are blocked
by a mask: their score is −∞, and e&lt;sup&gt;−∞&lt;/sup&gt; = 0, which is why those weights are exactly zero.&lt;/p&gt;
&lt;p&gt;The softmax only cares about differences within a row: adding the same number to a whole row
changes nothing. A score a few units above the others in its row already takes most of the weight.&lt;/p&gt;</source>
            <translation>&lt;p&gt;分数是 softmax 之前的数值：S = Q·K&lt;sup&gt;T&lt;/sup&gt;/√d&lt;sub&gt;k&lt;/sub&gt;（如果模型有位置偏置，还要再加上它）。带斜线阴影的单元格被掩码屏蔽：它们的分数为 −∞，而 e&lt;sup&gt;−∞&lt;/sup&gt; = 0，所以这些权重恰好为零。&lt;/p&gt;&lt;p&gt;softmax 只关心同一行内的差值：给整行加上同一个数不会改变任何结果。一个分数只要比同一行的其他分数高出几个单位，就已经能拿走大部分权重。&lt;/p&gt;</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/explain.py" line="108" />
            <source>Head statistics</source>
            <translation>注意力头统计</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/explain.py" line="109" />
            <source>&lt;ul&gt;
&lt;li&gt;&lt;b&gt;Entropy&lt;/b&gt; of a row, −Σ a·ln a, averaged over the rows: 0 when a head looks at one key, ln(n) when it
spreads evenly over n keys.&lt;/li&gt;
&lt;li&gt;&lt;b&gt;Max weight&lt;/b&gt;: how peaked the rows are on average.&lt;/li&gt;
&lt;li&gt;&lt;b&gt;Mean distance&lt;/b&gt;: how far (in tokens) a head looks from the query on average — small for
“previous word” heads, large for heads that gather the whole sentence.&lt;/li&gt;
&lt;li&gt;&lt;b&gt;Share on &amp;lt;pad&amp;gt; / &amp;lt;eos&amp;gt; / &amp;lt;bos&amp;gt;&lt;/b&gt;: heads with nothing useful to do often park
their attention on a special token.&lt;/li&gt;
&lt;li&gt;&lt;b&gt;Monotonicity&lt;/b&gt; (cross-attention): how close the alignment is to going left to right through the source.&lt;/li&gt;
&lt;li&gt;&lt;b&gt;Coverage&lt;/b&gt; (cross-attention): how much of the source has received attention so far.&lt;/li&gt;
&lt;/ul&gt;
&lt;p&gt;The colour scale is fixed across steps, so the same brightness means the same value at every step.&lt;/p&gt;</source>
            <translation>&lt;ul&gt;
&lt;li&gt;一行的&lt;b&gt;熵&lt;/b&gt; −Σ a·ln a，再对所有行取平均：一个头只看一个键时为 0，均匀分散到 n 个键上时为 ln(n)。&lt;/li&gt;&lt;li&gt;&lt;b&gt;最大权重&lt;/b&gt;：各行平均有多集中。&lt;/li&gt;&lt;li&gt;&lt;b&gt;平均距离&lt;/b&gt;：一个头平均看向离查询多远（以词元计）的位置——“前一个词”型的头很小，汇集整句信息的头很大。&lt;/li&gt;&lt;li&gt;&lt;b&gt;在 &amp;lt;pad&amp;gt; / &amp;lt;eos&amp;gt; / &amp;lt;bos&amp;gt; 上的占比&lt;/b&gt;：无事可做的头常常把注意力“停放” 在某个特殊词元上。&lt;/li&gt;&lt;li&gt;&lt;b&gt;单调性&lt;/b&gt;（交叉注意力）：对齐在多大程度上是从左到右依次经过源句的。&lt;/li&gt;&lt;li&gt;&lt;b&gt;覆盖度&lt;/b&gt;（交叉注意力）：到目前为止，源句中有多少内容已经得到关注。&lt;/li&gt;&lt;/ul&gt; &lt;p&gt;色标在各步之间保持不变，因此相同的亮度在每一步都代表相同的数值。&lt;/p&gt;</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/explain.py" line="123" />
            <source>Training: watching attention appear</source>
            <translation>训练：看注意力如何形成</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/explain.py" line="124" />
            <source>&lt;p&gt;The model starts from random weights, so its attention is noise. Training shows it
sentence pairs with &lt;b&gt;teacher forcing&lt;/b&gt;: the decoder gets the correct previous target tokens and
is penalised (cross-entropy) for the probability it gives to the correct next token. &lt;b&gt;Label
smoothing&lt;/b&gt; moves a little probability to the other tokens, so the model does not become
over-confident.&lt;/p&gt;
&lt;p&gt;The learning rate follows the original paper: it rises during a warm-up, then decreases as
1/√step. The validation loss, on sentences never trained on, tells whether the model generalises.&lt;/p&gt;
&lt;p&gt;Watch the probe sentence: for &lt;i&gt;copy&lt;/i&gt; a diagonal appears in the cross-attention, for
&lt;i&gt;reverse&lt;/i&gt; an anti-diagonal, for the translation tasks the word alignment (with the swaps of
adjectives and the one-to-two words of negation).&lt;/p&gt;</source>
            <translation>&lt;p&gt;模型从随机权重开始，所以它的注意力起初只是噪声。训练时用&lt;b&gt;教师强制&lt;/b&gt;向它展示句对：解码器得到正确的前序目标词元，并根据它赋予正确的下一个词元的概率受到惩罚（交叉熵）。&lt;b&gt;标签平滑&lt;/b&gt;把一小部分概率分给其他词元，使模型不会变得过度自信。&lt;/p&gt;&lt;p&gt;学习率沿用原论文的方案：先在预热阶段上升，然后按 1/√step 下降。验证集损失是在从未训练过的句子上计算的，它表明模型能否泛化。&lt;/p&gt;&lt;p&gt;注意观察探针句：在&lt;i&gt;复制&lt;/i&gt;任务中，交叉注意力里会出现一条对角线；在&lt;i&gt;反转&lt;/i&gt;任务中会出现一条反对角线；在翻译任务中则会出现词对齐（包括形容词的位置互换，以及否定中一个词对应两个词的情况）。&lt;/p&gt;</translation>
        </message>
        <message>
            <source>Attention rollout: which source words reach the output</source>
            <translation type="vanished">注意力展开（rollout）：哪些源词影响了输出</translation>
        </message>
        <message>
            <source>&lt;p&gt;One attention map shows one step of mixing; information also flows through the
residual connections and through several layers. &lt;b&gt;Attention rollout&lt;/b&gt; (Abnar &amp;amp; Zuidema, 2020)
follows it: each layer's head-averaged attention A is mixed with the identity for the residual,
Â = ½·A + ½·I (rows renormalised), and the layers are multiplied.&lt;/p&gt;
&lt;p&gt;Encoder: R&lt;sub&gt;enc&lt;/sub&gt; = Â&lt;sub&gt;L&lt;/sub&gt; ··· Â&lt;sub&gt;1&lt;/sub&gt;.
Decoder: keep D (how much each target input contributes) and E (how much each source token
contributes), starting with D = I, E = 0. Self-attention layer: D ← Â&lt;sub&gt;self&lt;/sub&gt;·D,
E ← Â&lt;sub&gt;self&lt;/sub&gt;·E. Cross-attention layer: D ← ½·D, E ← ½·E + ½·A&lt;sub&gt;cross&lt;/sub&gt;·R&lt;sub&gt;enc&lt;/sub&gt;.&lt;/p&gt;
&lt;p&gt;The heatmap shows E (target × source); the bar under the source chips shows the row of the
current step. It is an estimate that ignores the feed-forward layers and the values' sizes — a guide,
not a proof.&lt;/p&gt;</source>
            <translation type="vanished">&lt;p&gt;一张注意力图只展示了一步混合；信息还会经由残差连接、穿过多个层流动。&lt;b&gt;注意力展开（attention rollout）&lt;/b&gt;（Abnar &amp;amp; Zuidema, 2020）追踪的正是这一过程：把每一层对各头取平均后的注意力 A 与代表残差的单位矩阵混合，Â = ½·A + ½·I（各行重新归一化），再把各层的结果相乘。&lt;/p&gt;&lt;p&gt;编码器：R&lt;sub&gt;enc&lt;/sub&gt; = Â&lt;sub&gt;L&lt;/sub&gt; ··· Â&lt;sub&gt;1&lt;/sub&gt;。解码器：维护 D（每个目标输入的贡献）和 E（每个源词元的贡献），初始时 D = I，E = 0。自注意力层：D ← Â&lt;sub&gt;self&lt;/sub&gt;·D，E ← Â&lt;sub&gt;self&lt;/sub&gt;·E。交叉注意力层：D ← ½·D，E ← ½·E + ½·A&lt;sub&gt;cross&lt;/sub&gt;·R&lt;sub&gt;enc&lt;/sub&gt;。&lt;/p&gt;&lt;p&gt;热力图显示的是 E（目标 × 源）；源词元标签下方的条显示当前步对应的那一行。这只是一个估计，它忽略了前馈层和值向量的大小——可作参考，而非证明。&lt;/p&gt;</translation>
        </message>
    </context>
    <context>
        <name>Export</name>
        <message>
            <location filename="../../viz_app/export/images.py" line="402" />
            <source>MP4 export needs ffmpeg: install the 'video' extra (pip install "attention-scope[video]") or put ffmpeg on the PATH</source>
            <translation>导出 MP4 需要 ffmpeg：请安装 'video' 可选依赖（pip install "attention-scope[video]"），或把 ffmpeg 加入 PATH</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/images.py" line="405" />
            <source>MP4 export needs an H.264 encoder (libx264 or libopenh264); the ffmpeg at {path} has none</source>
            <translation>导出 MP4 需要 H.264 编码器（libx264 或 libopenh264）；位于 {path} 的 ffmpeg 两者都没有</translation>
        </message>
    </context>
    <context>
        <name>ExportActions</name>
        <message>
            <location filename="../../viz_app/export/menu.py" line="70" />
            <source>Export image (PNG)…</source>
            <translation>导出图片（PNG）…</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="71" />
            <source>Save the heatmap as a PNG image at twice the screen resolution</source>
            <translation>将热力图保存为两倍屏幕分辨率的 PNG 图片</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="73" />
            <source>Export SVG…</source>
            <translation>导出 SVG…</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="74" />
            <source>Save the heatmap as a scalable vector drawing (SVG)</source>
            <translation>将热力图保存为可缩放矢量图（SVG）</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="75" />
            <source>Export animation (GIF)…</source>
            <translation>导出动画（GIF）…</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="76" />
            <source>Save every decoding step of this map as an animated GIF</source>
            <translation>将这张图的每一个解码步保存为 GIF 动画</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="77" />
            <source>Export video (MP4)…</source>
            <translation>导出视频（MP4）…</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="78" />
            <source>Save every decoding step of this map as an H.264 video</source>
            <translation>将这张图的每一个解码步保存为 H.264 视频</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="79" />
            <source>Export matrix (CSV)…</source>
            <translation>导出矩阵（CSV）…</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="80" />
            <source>Save the numbers of this map at this step, with the tokens as headers</source>
            <translation>保存这张图在当前步的数值，以词元作为表头</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="82" />
            <source>Export trace (NPZ)…</source>
            <translation>导出注意力轨迹（NPZ）…</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="83" />
            <source>Save every attention map of this sentence (numpy .npz)</source>
            <translation>保存这个句子的全部注意力图（numpy .npz）</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="84" />
            <source>Export interactive page (HTML)…</source>
            <translation>导出交互式网页（HTML）…</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="85" />
            <source>Save this sentence as one web page that opens in any browser, on a phone too: every map, the steps, the next-token bars</source>
            <translation>把这个句子存成一个网页，任何浏览器都能打开，手机上也可以：包含所有注意力图、每一步解码和下一个词元的概率条</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="88" />
            <source>Copy image</source>
            <translation>复制图片</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="89" />
            <source>Copy the heatmap to the clipboard as an image</source>
            <translation>将热力图作为图片复制到剪贴板</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="142" />
            <source>Export image (PNG)</source>
            <translation>导出图片（PNG）</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="142" />
            <source>PNG images (*.png)</source>
            <translation>PNG 图片 (*.png)</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="146" />
            <source>Export SVG</source>
            <translation>导出 SVG</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="146" />
            <source>SVG drawings (*.svg)</source>
            <translation>SVG 矢量图 (*.svg)</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="149" />
            <source>Export animation (GIF)</source>
            <translation>导出动画（GIF）</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="149" />
            <source>GIF animations (*.gif)</source>
            <translation>GIF 动画 (*.gif)</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="157" />
            <source>Export video (MP4)</source>
            <translation>导出视频（MP4）</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="157" />
            <source>MP4 videos (*.mp4)</source>
            <translation>MP4 视频 (*.mp4)</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="161" />
            <source>Export matrix (CSV)</source>
            <translation>导出矩阵（CSV）</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="161" />
            <source>CSV tables (*.csv)</source>
            <translation>CSV 表格 (*.csv)</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="165" />
            <source>Export trace (NPZ)</source>
            <translation>导出注意力轨迹（NPZ）</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="165" />
            <source>Attention traces (*.npz)</source>
            <translation>注意力轨迹 (*.npz)</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="169" />
            <source>Export interactive page (HTML)</source>
            <translation>导出交互式网页（HTML）</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="170" />
            <source>Web pages (*.html)</source>
            <translation>网页 (*.html)</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="184" />
            <source>Image copied to the clipboard</source>
            <translation>图片已复制到剪贴板</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="330" />
            <source>Replace file?</source>
            <translation>替换文件？</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="250" />
            <source>layer {layer}, all {heads} heads, {rows} × {keys} each: {size} MB of this sentence's {total} GB of maps</source>
            <translation>第 {layer} 层，全部 {heads} 个头，每个 {rows} × {keys}：共 {size} MB（整句的注意力图有 {total} GB）</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="282" />
            <source>layer {layer} of this attention only: the whole sentence would not fit in one page</source>
            <translation>只包含当前注意力类型的第 {layer} 层：整句的全部注意力图放不进一个网页</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="291" />
            <source>rows {r0}–{r1}, columns {c0}–{c1}: the window on screen</source>
            <translation>第 {r0}–{r1} 行、第 {c0}–{c1} 列：即屏幕上显示的窗口</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="305" />
            <source>Nothing to export yet: type a sentence first.</source>
            <translation>还没有可导出的内容：请先输入一个句子。</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="364" />
            <source>Exported {path}</source>
            <translation>已导出 {path}</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="331" />
            <source>{name} already exists in {folder}. Replace it?</source>
            <translation>{folder} 中已存在 {name}。要替换它吗？</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="245" />
            <source>layer {layer}'s {heads} maps would take {size} GB (the limit is {limit} GB); the command line's export chooses fewer heads or rows</source>
            <translation>第 {layer} 层的 {heads} 张注意力图需要 {size} GB（上限为 {limit} GB）；可用命令行的 export 选择更少的头或行</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="348" />
            <source>Could not export: {path} is a folder</source>
            <translation>无法导出：{path} 是一个文件夹</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="365" />
            <source>{done} ({what})</source>
            <translation>{done}（{what}）</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="182" />
            <source>Could not copy the image: {error}</source>
            <translation>无法复制图片：{error}</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="279" />
            <source>one page would be {size} MB even for this layer alone (the limit is {limit} MB): export the trace (NPZ) instead</source>
            <translation>即使只放这一层，网页也有 {size} MB（上限是 {limit} MB）：请改为导出注意力轨迹（NPZ）</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="352" />
            <source>Not exported: {name} was kept</source>
            <translation>未导出：已保留原有的 {name}</translation>
        </message>
        <message>
            <location filename="../../viz_app/export/menu.py" line="359" />
            <source>Could not export {name}: {error}</source>
            <translation>无法导出 {name}：{error}</translation>
        </message>
    </context>
    <context>
        <name>HFCacheMenu</name>
        <message>
            <location filename="../../viz_app/window/hf_cache_menu.py" line="54" />
            <source>Open from &amp;Hugging Face cache</source>
            <translation>从 &amp;Hugging Face 本地缓存打开</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/hf_cache_menu.py" line="28" />
            <source>{name}  ({kind}: cannot be shown)</source>
            <translation>{name}（{kind}：无法显示）</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/hf_cache_menu.py" line="36" />
            <source>No encoder-decoder models in the Hugging Face cache</source>
            <translation>Hugging Face 缓存中没有编码器-解码器模型</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/hf_cache_menu.py" line="26" />
            <source>{name}  ({kind}, {size})</source>
            <translation>{name}（{kind}，{size}）</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/hf_cache_menu.py" line="38" />
            <source>Looked in {folder}; download one with: hf download NAME</source>
            <translation>已查找 {folder}；可用以下命令下载：hf download 模型名</translation>
        </message>
    </context>
    <context>
        <name>HeadMosaic</name>
        <message>
            <location filename="../../viz_app/widgets/mosaic.py" line="81" />
            <source>layer</source>
            <translation>层</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/mosaic.py" line="82" />
            <source>head</source>
            <translation>头</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/mosaic.py" line="135" />
            <source>No attention maps yet.</source>
            <translation>还没有注意力图。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/mosaic.py" line="425" />
            <source>{tile} — click to inspect this head</source>
            <translation>{tile} — 点击查看这个头</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/mosaic.py" line="290" />
            <source>OFF</source>
            <comment>a switched-off head</comment>
            <translation>关闭</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/mosaic.py" line="185" />
            <source>L{layer}</source>
            <comment>short for layer N</comment>
            <translation>L{layer}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/mosaic.py" line="189" />
            <source>H{head}</source>
            <comment>short for head N</comment>
            <translation>H{head}</translation>
        </message>
    </context>
    <context>
        <name>HeadStats</name>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="57" />
            <source>entropy (nats)</source>
            <translation>熵（nats）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="58" />
            <source>max weight</source>
            <translation>最大权重</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="59" />
            <source>mean distance</source>
            <translation>平均距离</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="60" />
            <source>share on &lt;pad&gt;</source>
            <translation>&lt;pad&gt; 占比</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="61" />
            <source>share on &lt;eos&gt;</source>
            <translation>&lt;eos&gt; 占比</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="62" />
            <source>share on &lt;bos&gt;</source>
            <translation>&lt;bos&gt; 占比</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="63" />
            <source>share on start</source>
            <translation>起始符占比</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="64" />
            <source>monotonicity (Spearman)</source>
            <translation>单调性（Spearman）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="65" />
            <source>source coverage</source>
            <translation>源句覆盖度</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="69" />
            <source>How spread out each query's attention is: 0 = one key takes everything, ln(number of keys) = uniform.</source>
            <translation>每个查询的注意力有多分散：0 = 全部落在一个键上，ln(键的个数) = 均匀分布。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="71" />
            <source>The largest weight in each query row: 1 = the head looks at a single key.</source>
            <translation>每个查询行中最大的权重：1 = 这个头只看一个键。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="72" />
            <source>How far from the query's own position the head looks (for cross-attention: from the length-scaled diagonal of the source).</source>
            <translation>这个头看向离查询自身位置多远的地方（交叉注意力：按长度缩放后离源句对角线多远）。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="74" />
            <source>The attention mass put on &lt;pad&gt; keys (the decoder's start token never counts, even where it is &lt;pad&gt;, as in Marian models).</source>
            <translation>落在 &lt;pad&gt; 键上的注意力总量（解码器的起始符不计入，即使它就是 &lt;pad&gt;，如 Marian 模型）。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="76" />
            <source>The attention mass put on &lt;eos&gt; keys: heads that park there often do nothing.</source>
            <translation>落在 &lt;eos&gt; 键上的注意力总量：把注意力“停放”在那里的头往往什么也没做。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="77" />
            <source>The attention mass put on &lt;bos&gt; keys.</source>
            <translation>落在 &lt;bos&gt; 键上的注意力总量。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="78" />
            <source>Decoder self-attention: the attention mass put on the decoder's start token, where many heads park when they have nothing to do.</source>
            <translation>解码器自注意力：落在解码器起始符上的注意力总量；许多头在无事可做时会把注意力“停放”在那里。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="80" />
            <source>Whether the head walks through the source left to right (1), right to left (−1) or in no order (0).</source>
            <translation>这个头是从左到右（1）、从右到左（−1）还是无序（0）地经过源句。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="82" />
            <source>The fraction of the source that has received one unit of attention so far.</source>
            <translation>到目前为止，源句中已累计获得一个单位注意力的部分所占的比例。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="290" />
            <source>Which attention the statistics describe</source>
            <translation>统计的是哪一种注意力</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="296" />
            <source>The statistic shown in the grid</source>
            <translation>网格中显示的统计量</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="303" />
            <source>Attention:</source>
            <translation>注意力：</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="304" />
            <source>Statistic:</source>
            <translation>统计量：</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="314" />
            <source>layer</source>
            <translation>层</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="315" />
            <source>head</source>
            <translation>头</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="352" />
            <source>Click a column header to sort; double-click a row to inspect that head</source>
            <translation>点击列标题排序；双击一行查看该头</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="379" />
            <source>No statistics yet: run the model.</source>
            <translation>尚无统计数据：请先运行模型。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="230" />
            <source>no value: no query row is visible at this step</source>
            <translation>无数值：当前步还没有可见的查询行</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="547" />
            <source>layer {layer} · head {head} · {metric} = {value} — click to inspect this head</source>
            <translation>第 {layer} 层 · 头 {head} · {metric} = {value} — 点击查看这个头</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="654" />
            <source>{metric} of every head · {kind} · step {step} ({rows} query rows) · colours span the fixed range {span}</source>
            <translation>各头的{metric} · {kind} · 第 {step} 步（{rows} 个查询行）· 颜色对应固定范围 {span}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="605" />
            <source>This model has no {kind}.</source>
            <translation>该模型没有{kind}。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="650" />
            <source>L{layer}</source>
            <translation>L{layer}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/head_stats.py" line="651" />
            <source>H{head}</source>
            <translation>H{head}</translation>
        </message>
        <message>
            <source>{metric} of every head · {kind} · step {step} ({rows} query rows) · colours span the fixed range {low} … {high}</source>
            <translation type="vanished">各头的{metric} · {kind} · 第 {step} 步（{rows} 个查询行）· 颜色对应固定范围 {low} … {high}</translation>
        </message>
        <message>
            <source>The attention mass put on &lt;pad&gt; keys.</source>
            <translation type="vanished">落在 &lt;pad&gt; 键上的注意力总量。</translation>
        </message>
    </context>
    <context>
        <name>Heatmap</name>
        <message>
            <location filename="../../viz_app/widgets/heatmap.py" line="713" />
            <source>query</source>
            <translation>查询</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/heatmap.py" line="714" />
            <source>key</source>
            <translation>键</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/heatmap.py" line="750" />
            <source>not computed yet</source>
            <translation>尚未计算</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/heatmap.py" line="1055" />
            <source>−∞ (blocked)</source>
            <translation>−∞（已屏蔽）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/heatmap.py" line="1057" />
            <source>switched off: this head adds nothing to the layer's output</source>
            <translation>已关闭：这个头对该层的输出没有任何贡献</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/heatmap.py" line="1079" />
            <source>query {query} → key {key}: {weight}</source>
            <translation>查询 {query} → 键 {key}：{weight}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/heatmap.py" line="1069" />
            <source>query {query} → key {key}: not computed yet</source>
            <translation>查询 {query} → 键 {key}：尚未计算</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/heatmap.py" line="1074" />
            <source>query {query} → key {key}: score {score} (before the softmax)</source>
            <translation>查询 {query} → 键 {key}：分数 {score}（softmax 之前）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/heatmap.py" line="1308" />
            <source>{title} · scores before the softmax</source>
            <translation>{title} · softmax 之前的分数</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/heatmap.py" line="1310" />
            <source>{title} (log colour scale)</source>
            <translation>{title}（对数色标）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/heatmap.py" line="1073" />
            <source>query {query} → key {key}: −∞ (blocked by the mask)</source>
            <translation>查询 {query} → 键 {key}：−∞（被掩码屏蔽）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/heatmap.py" line="1290" />
            <source>blocked by the mask:</source>
            <translation>被掩码屏蔽：</translation>
        </message>
        <message>
            <source>blocked (mask False):</source>
            <translation type="vanished">被屏蔽（不可注意）：</translation>
        </message>
    </context>
    <context>
        <name>Help</name>
        <message>
            <location filename="../../viz_app/dialogs/help.py" line="63" />
            <source>The arrow keys (← →), Home / End and Space step through decoding when the focus is not in a text box; with Alt they work everywhere. Enter in a sentence box runs it and gives these keys back to the map; Esc leaves a text box.</source>
            <translation>焦点不在文本框里时，用方向键（← →）、Home / End 和空格键逐步浏览解码过程；按住 Alt 时，这些键在任何地方都能用。在句子框里按 Enter 键会立即运行，并把这些键交还给注意力图；按 Esc 键可离开文本框。</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/help.py" line="69" />
            <source>Alt with a menu's underlined letter opens that menu (Alt+F File, Alt+M Model…); these jump to a box instead:</source>
            <translation>Alt 加菜单名里带下划线的字母会打开该菜单（Alt+F 文件、Alt+M 模型……）；下面这些键则直接跳到对应的输入框：</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/help.py" line="109" />
            <source>Keyboard shortcuts</source>
            <translation>键盘快捷键</translation>
        </message>
        <message>
            <source>The arrow keys (← →), Home / End and Space step through decoding when the focus is not in a text box; with Alt they work everywhere. Esc leaves a text box.</source>
            <translation type="vanished">焦点不在文本框里时，用方向键（← →）、Home / End 和空格键逐步浏览解码过程；按住 Alt 时，这些键在任何地方都能用。按 Esc 键可离开文本框。</translation>
        </message>
        <message>
            <source>The arrow keys, Home/End and Space step through decoding when the focus is not in a text box; with Alt they work everywhere. Esc leaves a text box.</source>
            <translation type="vanished">焦点不在文本框中时，可用方向键、Home/End 和空格键逐步浏览解码过程；同时按住 Alt 时，它们在任何地方都有效。按 Esc 可离开文本框。</translation>
        </message>
    </context>
    <context>
        <name>HyperparametersDialog</name>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="66" />
            <source>Attention heads</source>
            <translation>注意力头数</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="67" />
            <source>Norm position</source>
            <translation>归一化位置</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="68" />
            <source>Feed-forward activation</source>
            <translation>前馈层激活函数</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="69" />
            <source>Source vocabulary</source>
            <translation>源词表</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="70" />
            <source>Target vocabulary</source>
            <translation>目标词表</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="71" />
            <source>Start token</source>
            <translation>起始符</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="72" />
            <source>End token</source>
            <translation>结束符</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="73" />
            <source>Padding token</source>
            <translation>填充符</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="74" />
            <source>Unknown-word token</source>
            <translation>未登录词符</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="75" />
            <source>Tokenization</source>
            <translation>分词方式</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="79" />
            <source>How the attention is split into heads; the model width must be divisible by it. The most likely value comes first.</source>
            <translation>注意力分成几个头；模型宽度必须能被它整除。最可能的取值排在最前面。</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="81" />
            <source>pre: x + f(norm(x)); post: norm(x + f(x)), nn.Transformer's default (norm_first=False). Both have the same weights, so only you can tell; the likelier comes first.</source>
            <translation>pre：x + f(norm(x))；post：norm(x + f(x))，即 nn.Transformer 的默认做法（不开启 norm_first）。两者的权重完全相同，无法从文件中分辨，只有你知道是哪一种；可能性较大的排在前面。</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="83" />
            <source>The function between the feed-forward's two layers: relu, nn.Transformer's default, or gelu. The weights are the same either way, so only you can tell.</source>
            <translation>前馈层两个线性层之间的激活函数：relu（nn.Transformer 的默认值）或 gelu。两种情况下权重完全相同，只有你知道是哪一种。</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="85" />
            <source>The source vocabulary the model was trained with: one token per line, or a JSON list; the line number is the id.</source>
            <translation>训练该模型时使用的源词表：每行一个词元，或一个 JSON 列表；行号即为 id。</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="87" />
            <source>The target vocabulary the model was trained with: one token per line, or a JSON list; the line number is the id.</source>
            <translation>训练该模型时使用的目标词表：每行一个词元，或一个 JSON 列表；行号即为 id。</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="89" />
            <source>The vocabulary's token that starts a sentence (often &lt;s&gt;, &lt;sos&gt; or [CLS]). Its names leave it open, so only you can tell; it is shown under its own name.</source>
            <translation>词表中表示句子开头的词元（常见的有 &lt;s&gt;、&lt;sos&gt; 或 [CLS]）。单凭名称无法断定是哪一个，只能由你来指定；界面上会按它在词表里的原名显示。</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="91" />
            <source>The vocabulary's token that ends a sentence (often &lt;/s&gt;, &lt;eos&gt; or [SEP]).</source>
            <translation>词表中表示句子结尾的词元（常见的有 &lt;/s&gt;、&lt;eos&gt; 或 [SEP]）。</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="92" />
            <source>The vocabulary's padding token (often &lt;pad&gt;, &lt;blank&gt; or [PAD]).</source>
            <translation>词表中用于填充的词元（常见的有 &lt;pad&gt;、&lt;blank&gt; 或 [PAD]）。</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="93" />
            <source>The token for words the vocabulary lacks (often &lt;unk&gt; or [UNK]).</source>
            <translation>词表中代替未收录词的词元（常见的有 &lt;unk&gt; 或 [UNK]）。</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="94" />
            <source>How text is cut before each piece is looked up: app (words and punctuation apart), whitespace (only at spaces: for vocabularies with entries like n't or E-Mail) or a tokenizer.json. The one with the fewest unknown words comes first.</source>
            <translation>文本在查词表之前如何切分：app（把词和标点分开）、whitespace（只按空格切分，适合含有 n't、E-Mail 这类词条的词表），或者一个 tokenizer.json。产生未登录词最少的方式排在最前面。</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="176" />
            <source>Settings the checkpoint does not record</source>
            <translation>检查点中未记录的设置</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="238" />
            <source>Browse…</source>
            <translation>浏览…</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="252" />
            <source>Choose the tokenizer.json</source>
            <translation>选择 tokenizer.json</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="253" />
            <source>Tokenizers (*.json);;All files (*)</source>
            <translation>分词器 (*.json);;所有文件 (*)</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="255" />
            <source>Choose the vocabulary file</source>
            <translation>选择词表文件</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="256" />
            <source>Vocabularies (*.txt *.json *.vocab);;All files (*)</source>
            <translation>词表 (*.txt *.json *.vocab);;所有文件 (*)</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="213" />
            <source>vocabulary file (.txt or .json)</source>
            <translation>词表文件（.txt 或 .json）</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="184" />
            <source>{file} holds the weights but not everything needed to rebuild the model. Please complete:</source>
            <translation>{file} 包含了权重，但缺少重建模型所需的部分信息。请补全：</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="122" />
            <source>{option}: please give a value</source>
            <translation>{option}：请填写一个值</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="125" />
            <source>{option}: {value} is not a positive whole number</source>
            <translation>{option}：{value} 不是正整数</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="130" />
            <source>{option}: choose pre or post, not {value}</source>
            <translation>{option}：请选择 pre 或 post，而不是 {value}</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="134" />
            <source>{option}: choose relu or gelu, not {value}</source>
            <translation>{option}：请选择 relu 或 gelu，而不是 {value}</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="140" />
            <source>{option}: choose app or whitespace, or give a tokenizer.json file; {value} is neither</source>
            <translation>{option}：请选择 app 或 whitespace，或者指定一个 tokenizer.json 文件；{value} 都不是</translation>
        </message>
        <message>
            <location filename="../../viz_app/dialogs/hyperparameters.py" line="146" />
            <source>{option}: {path} is not a file</source>
            <translation>{option}：{path} 不是文件</translation>
        </message>
        <message>
            <source>pre: x + f(norm(x)), the tutorial's default; post: norm(x + f(x)). Both have the same weights, so only you can tell.</source>
            <translation type="vanished">pre：x + f(norm(x))，即教程的默认做法；post：norm(x + f(x))。两者的权重完全相同，无法从文件中分辨，只有你知道是哪一种。</translation>
        </message>
    </context>
    <context>
        <name>Keys</name>
        <message>
            <location filename="../../viz_app/i18n/keys.py" line="48" />
            <source>Space</source>
            <translation>空格键</translation>
        </message>
    </context>
    <context>
        <name>MainWindow</name>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="76" />
            <source>by the app's splitter</source>
            <translation>按本应用的规则</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="77" />
            <source>at spaces only</source>
            <translation>只按空格</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="78" />
            <source>by its tokenizer.json</source>
            <translation>按它的 tokenizer.json</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="90" />
            <source>Loaded {name}</source>
            <translation>已加载 {name}</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="245" />
            <source>Stopped the run; edit the sentence to run it again</source>
            <translation>已停止本次运行；修改句子即可重新运行</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="462" />
            <source>Moving the model to the CPU…</source>
            <translation>正在把模型移到 CPU…</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="87" />
            <source>Loaded {name}; source text is cut {source}, target text {target}</source>
            <translation>已加载 {name}；源文本{source}切分，目标文本{target}切分</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="340" />
            <source>The sentence was not run again: its last run was stopped or took too long. Edit it to run it.</source>
            <translation>这个句子没有自动重新运行：它上一次的运行被停止或耗时过长。修改句子即可运行。</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="219" />
            <source>Loading {name}…</source>
            <translation>正在加载 {name}…</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="232" />
            <source>Stopped opening {name}</source>
            <translation>已停止打开 {name}</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="281" />
            <source>Comparing with {name}…</source>
            <translation>正在与 {name} 比较…</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="449" />
            <source>The model could not run: {reason} (the previous result is still shown)</source>
            <translation>模型无法运行：{reason}（仍显示上一次的结果）</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="451" />
            <source>The model could not run: {reason}</source>
            <translation>模型无法运行：{reason}</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="267" />
            <source>Not opened: {reason}</source>
            <translation>未打开：{reason}</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="291" />
            <source>Now running on {device}</source>
            <translation>现在运行于 {device}</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="394" />
            <source>the session's step {step} is past this sentence's last step: step {steps} is shown</source>
            <translation>会话中的第 {step} 步超出了这个句子的最后一步：显示的是第 {steps} 步</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="402" />
            <source>Note: {notes}</source>
            <translation>注意：{notes}</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="424" />
            <source>Could not move the model: {reason}</source>
            <translation>无法移动模型：{reason}</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="508" />
            <source>Could not open the session: {reason}</source>
            <translation>无法打开会话：{reason}</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="194" />
            <source>No model found: open one with File ▸ Open model…</source>
            <translation>未找到模型：请通过“文件 ▸ 打开模型…”打开一个模型</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="420" />
            <source>Could not compare: {reason}</source>
            <translation>无法比较：{reason}</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="421" />
            <source>Could not inspect the model: {reason}</source>
            <translation>无法检视模型：{reason}</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="438" />
            <source>Could not open {name} (opened {fallback} instead): {reason}</source>
            <translation>无法打开 {name}（已改为打开 {fallback}）：{reason}</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/controller.py" line="441" />
            <source>Could not open {name}: {reason}</source>
            <translation>无法打开 {name}：{reason}</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/persistence.py" line="88" />
            <source>The app ended while opening or first running {name} last time, so it was not opened again; open it with File ▸ Open model… to try once more.</source>
            <translation>上次打开或首次运行 {name} 时程序意外退出，所以这次没有再打开它；如需再试，请用“文件 ▸ 打开模型…”。</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/persistence.py" line="93" />
            <source>The model you used last, {path}, no longer exists.</source>
            <translation>上次使用的模型 {path} 已不存在。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="211" />
            <source>query: decoder input → token it chose</source>
            <translation>查询：解码器输入 → 它选中的词元</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="144" />
            <source>mean of heads</source>
            <translation>各头平均</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="208" />
            <source>query: decoder input</source>
            <translation>查询：解码器输入</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="210" />
            <source>query: decoder input → next typed token</source>
            <translation>查询：解码器输入 → 下一个键入的词元</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="380" />
            <source>Integrated gradients</source>
            <translation>积分梯度</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="381" />
            <source>Gradient × input</source>
            <translation>梯度 × 输入</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="383" />
            <source>{method} over the target prefix · step {step} / {total}</source>
            <translation>{method}：目标前缀 · 第 {step} / {total} 步</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="385" />
            <source>{method} over the source · step {step} / {total}</source>
            <translation>{method}：源句 · 第 {step} / {total} 步</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="396" />
            <source>earlier target token (decoder input)</source>
            <translation>之前的目标词元（解码器输入）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="396" />
            <source>source token</source>
            <translation>源词元</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="495" />
            <source>decoder layer</source>
            <translation>解码器层</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="496" />
            <source>step: the token written</source>
            <translation>步骤：写出的词元</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="145" />
            <source>{kind} · layer {layer} · {head} · step {step} / {total}</source>
            <translation>{kind} · 第 {layer} 层 · {head} · 第 {step} / {total} 步</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="201" />
            <source>{label} (model: {token})</source>
            <translation>{label}（模型：{token}）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="266" />
            <source>query: source token</source>
            <translation>查询：源词元</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="266" />
            <source>key: source token</source>
            <translation>键：源词元</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="273" />
            <source>key: decoder input</source>
            <translation>键：解码器输入</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="144" />
            <source>head {head}</source>
            <translation>头 {head}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="277" />
            <source>{title} · switched OFF (adds nothing to the layer)</source>
            <translation>{title} · 已关闭（对该层输出没有贡献）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="301" />
            <source>{title}
rows {r0}–{r1} of {rows}, columns {c0}–{c1} of {cols}</source>
            <translation>{title}
第 {r0}–{r1} 行（共 {rows} 行），第 {c0}–{c1} 列（共 {cols} 列）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="492" />
            <source>layer {layer}</source>
            <translation>第 {layer} 层</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="279" />
            <source>{title} · {n} of {total} heads OFF</source>
            <translation>{title} · {total} 个头中已关闭 {n} 个</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="287" />
            <source>{title} · {share} % from the source</source>
            <translation>{title} · {share}% 来自源句</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="391" />
            <source>L{layer} H{head}</source>
            <translation>L{layer} H{head}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="392" />
            <source>L{layer} mean</source>
            <translation>L{layer} 各头平均</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="394" />
            <source>{title} · agreement with {which}: ρ = {rho}</source>
            <translation>{title} · 与 {which} 的一致性：ρ = {rho}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="406" />
            <source>{label} · step {step}'s row did not converge ({points} points): its numbers are not reliable</source>
            <translation>{label} · 第 {step} 步这一行未收敛（{points} 个点）：其数值不可靠</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="417" />
            <source>{title} · not converged: step {steps}</source>
            <translation>{title} · 未收敛：第 {steps} 步</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="411" />
            <source>{label} · step {step}'s row sums to {share} % of log p − log p(baseline) ({points} points)</source>
            <translation>{label} · 第 {step} 步这一行之和为 log p − log p(基线) 的 {share}%（{points} 个点）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/map_view.py" line="414" />
            <source>{label} · step {step}'s row sums to {share} % of log p − log p(baseline)</source>
            <translation>{label} · 第 {step} 步这一行之和为 log p − log p(基线) 的 {share}%</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="48" />
            <source>&amp;Open model…</source>
            <translation>打开模型(&amp;O)…</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="48" />
            <source>Open a model checkpoint</source>
            <translation>打开一个模型检查点</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="50" />
            <source>&amp;Cancel loading</source>
            <translation>取消加载(&amp;C)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="51" />
            <source>Stop waiting for the model being opened; the current one stays</source>
            <translation>不再等待正在打开的模型，保留当前模型</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="54" />
            <source>&amp;Quit</source>
            <translation>退出(&amp;Q)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="54" />
            <source>Quit Attention Scope</source>
            <translation>退出 Attention Scope</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="55" />
            <source>&amp;First step</source>
            <translation>第一步(&amp;F)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="55" />
            <source>Go to step 0</source>
            <translation>转到第 0 步</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="57" />
            <source>&amp;Previous step</source>
            <translation>上一步(&amp;P)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="57" />
            <source>One decoding step back</source>
            <translation>后退一个解码步</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="59" />
            <source>&amp;Next step</source>
            <translation>下一步(&amp;N)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="59" />
            <source>One decoding step forward</source>
            <translation>前进一个解码步</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="61" />
            <source>&amp;Last step</source>
            <translation>最后一步(&amp;L)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="61" />
            <source>Go to the last step</source>
            <translation>转到最后一步</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="63" />
            <source>Pla&amp;y</source>
            <translation>播放(&amp;Y)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="63" />
            <source>Play / pause the decoding</source>
            <translation>播放 / 暂停解码过程</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="66" />
            <source>Focus the &amp;view</source>
            <translation>聚焦视图(&amp;V)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="67" />
            <source>Leave the text box so the arrow keys step</source>
            <translation>离开文本框，让方向键用于逐步浏览</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="73" />
            <source>Next la&amp;yer</source>
            <translation>下一层(&amp;Y)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="73" />
            <source>One layer deeper</source>
            <translation>切换到更深的一层</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="74" />
            <source>Previous l&amp;ayer</source>
            <translation>上一层(&amp;A)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="74" />
            <source>One layer shallower</source>
            <translation>切换到更浅的一层</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="75" />
            <source>Next &amp;head</source>
            <translation>下一个头(&amp;H)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="75" />
            <source>Next head (after the mean: head 0)</source>
            <translation>下一个头（“各头平均”之后是头 0）</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="76" />
            <source>Pre&amp;vious head</source>
            <translation>上一个头(&amp;V)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="76" />
            <source>Previous head (before head 0: the mean)</source>
            <translation>上一个头（头 0 之前是“各头平均”）</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="77" />
            <source>&amp;Mean of heads</source>
            <translation>各头平均(&amp;M)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="77" />
            <source>Show the mean of the layer's heads</source>
            <translation>显示该层所有头的平均</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="78" />
            <source>&amp;Larger text</source>
            <translation>增大文字(&amp;L)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="79" />
            <source>Larger labels (for a projector)</source>
            <translation>更大的标签文字（适合投影）</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="80" />
            <source>&amp;Smaller text</source>
            <translation>减小文字(&amp;S)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="80" />
            <source>Smaller labels</source>
            <translation>更小的标签文字</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="81" />
            <source>&amp;Normal text size</source>
            <translation>默认文字大小(&amp;N)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="81" />
            <source>Default label size</source>
            <translation>恢复默认的标签文字大小</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="82" />
            <source>&amp;Presenter mode</source>
            <translation>演示模式(&amp;P)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="83" />
            <source>Full screen, large labels, secondary panels hidden</source>
            <translation>全屏、大号标签、隐藏次要面板</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="85" />
            <source>&amp;Keyboard shortcuts</source>
            <translation>键盘快捷键(&amp;K)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="85" />
            <source>Show the keyboard shortcuts</source>
            <translation>显示键盘快捷键</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="86" />
            <source>E&amp;xplain this view</source>
            <translation>讲解当前视图(&amp;X)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="87" />
            <source>What the main heatmap shows, in plain words</source>
            <translation>用浅显的话说明主热力图显示的内容</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="88" />
            <source>&amp;About Attention Scope</source>
            <translation>关于 Attention Scope(&amp;A)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="88" />
            <source>About this program</source>
            <translation>关于本程序</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="89" />
            <source>Open sess&amp;ion…</source>
            <translation>打开会话(&amp;I)…</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="90" />
            <source>Reopen a saved session: model, sentences, step, selection, ablations</source>
            <translation>重新打开已保存的会话：模型、句子、步数、所选视图、消融设置</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="91" />
            <source>&amp;Save session…</source>
            <translation>保存会话(&amp;S)…</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="92" />
            <source>Save everything shown to a small file, to reopen it exactly (a lecture)</source>
            <translation>把当前显示的一切保存到一个小文件中，以便原样重新打开（例如用于讲课）</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="93" />
            <source>&amp;Inspect model</source>
            <translation>检视模型(&amp;I)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="94" />
            <source>Architecture, parameter counts and weight distributions of the model</source>
            <translation>模型的结构、参数量和权重分布</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="95" />
            <source>&amp;Compare with another checkpoint…</source>
            <translation>与另一个检查点比较(&amp;C)…</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="96" />
            <source>The attention of two checkpoints of the same architecture, and their difference</source>
            <translation>同一结构的两个检查点的注意力及其差异</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="97" />
            <source>&amp;Ablation…</source>
            <translation>消融(&amp;A)…</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="98" />
            <source>Switch off heads or the positional encoding and see what changes</source>
            <translation>关闭一些注意力头或位置编码，看看会有什么变化</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="99" />
            <source>Switch every head back &amp;on</source>
            <translation>重新开启所有头(&amp;O)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="100" />
            <source>Undo every ablation: the intact model again</source>
            <translation>撤销所有消融：恢复完整的原始模型</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="101" />
            <source>Label rows by the decoder &amp;input</source>
            <translation>按解码器输入标注行(&amp;I)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="102" />
            <source>Label each decoder row by its input token instead of the token that follows it</source>
            <translation>用输入词元而不是其后的词元来标注解码器的每一行</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="104" />
            <source>&amp;Train a model from scratch…</source>
            <translation>从零训练模型(&amp;T)…</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="105" />
            <source>Watch attention appear while a small model trains</source>
            <translation>观察小模型在训练过程中注意力如何形成</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="69" />
            <source>&amp;Encoder self-attention</source>
            <translation>编码器自注意力(&amp;E)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="69" />
            <source>Show encoder self-attention</source>
            <translation>显示编码器自注意力</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="70" />
            <source>&amp;Decoder self-attention</source>
            <translation>解码器自注意力(&amp;D)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="70" />
            <source>Show decoder self-attention</source>
            <translation>显示解码器自注意力</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="71" />
            <source>&amp;Cross-attention</source>
            <translation>交叉注意力(&amp;C)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/actions.py" line="71" />
            <source>Show cross-attention</source>
            <translation>显示交叉注意力</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/alignment_binding.py" line="67" />
            <source>Alignment lines</source>
            <translation>对齐连线</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/alignment_binding.py" line="71" />
            <source>Alignment &amp;lines (source → target)</source>
            <translation>对齐连线（源句 → 译文）(&amp;L)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/alignment_tools.py" line="228" />
            <source>Alignment</source>
            <translation>对齐</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/alignment_tools.py" line="233" />
            <source>Alignment with &amp;gold links</source>
            <translation>与标准对齐比较(&amp;G)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/alignment_tools.py" line="253" />
            <source>Open &amp;report…</source>
            <translation>打开报告(&amp;R)…</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/alignment_tools.py" line="254" />
            <source>A folder written by: attention-scope report</source>
            <translation>由 attention-scope report 生成的文件夹</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/appearance.py" line="77" />
            <source>The language changes at the next start.</source>
            <translation>界面语言将在下次启动时更改。</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="50" />
            <source>&lt;h3&gt;No model loaded&lt;/h3&gt;&lt;p&gt;Open a checkpoint (&lt;tt&gt;.safetensors&lt;/tt&gt;, a PyTorch &lt;tt&gt;.pt&lt;/tt&gt; state_dict or a Hugging Face folder) with &lt;b&gt;File ▸ Open model…&lt;/b&gt; (Ctrl+O), the &lt;b&gt;Model&lt;/b&gt; list above, or drop it on the window.&lt;/p&gt;</source>
            <translation>&lt;h3&gt;未加载模型&lt;/h3&gt;&lt;p&gt;打开一个检查点（&lt;tt&gt;.safetensors&lt;/tt&gt;、PyTorch &lt;tt&gt;.pt&lt;/tt&gt; state_dict 或 Hugging Face 文件夹）：使用&lt;b&gt;文件 ▸ 打开模型…&lt;/b&gt;（Ctrl+O）、上方的&lt;b&gt;模型&lt;/b&gt;列表，或直接把它拖到窗口上。&lt;/p&gt;</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="53" />
            <source>&lt;h3&gt;Type a sentence&lt;/h3&gt;&lt;p&gt;Write a sentence in the &lt;b&gt;Source&lt;/b&gt; box above: the model translates it and you can step through every attention map it computed.&lt;/p&gt;</source>
            <translation>&lt;h3&gt;输入一个句子&lt;/h3&gt;&lt;p&gt;在上方的&lt;b&gt;源句&lt;/b&gt;框中写一个句子：模型会翻译它，你可以逐步查看它计算出的每一张注意力图。&lt;/p&gt;</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="55" />
            <source>&lt;h3&gt;Loading the model…&lt;/h3&gt;</source>
            <translation>&lt;h3&gt;正在加载模型…&lt;/h3&gt;</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="56" />
            <source>&lt;h3&gt;Running the model…&lt;/h3&gt;</source>
            <translation>&lt;h3&gt;正在运行模型…&lt;/h3&gt;</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="384" />
            <source>computing…</source>
            <translation>计算中…</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="465" />
            <source>No attention maps yet.</source>
            <translation>还没有注意力图。</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="335" />
            <source>Computing the scores…</source>
            <translation>正在计算分数…</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="456" />
            <source>Loading the model…</source>
            <translation>正在加载模型…</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="458" />
            <source>No model loaded.</source>
            <translation>尚未加载模型。</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="460" />
            <source>Type a sentence to see every head.</source>
            <translation>输入一个句子，即可看到每个注意力头。</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="462" />
            <source>Running the model…</source>
            <translation>模型正在运行…</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="540" />
            <source>Step {step} is target padding (after &lt;eos&gt;): the model computes its row, but nothing reads it and it predicts nothing.</source>
            <translation>第 {step} 步是目标端填充（在 &lt;eos&gt; 之后）：模型照样计算这一行，但没有任何位置读取它，它也不做任何预测。</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="558" />
            <source>No prediction yet.</source>
            <translation>尚无预测。</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="562" />
            <source>Step 0: the decoder has produced nothing yet. Step forward (→) to see its first prediction.</source>
            <translation>第 0 步：解码器还没有生成任何内容。前进一步（→）即可看到它的第一个预测。</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="589" />
            <source>Switch off a head or the positional encoding to compare the intact model (before) with the ablated one (after).</source>
            <translation>关闭一个注意力头或位置编码，即可比较完整模型（消融前）与消融后的模型（消融后）。</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="593" />
            <source>Step forward to see the next-token probabilities before and after.</source>
            <translation>前进一步，即可看到消融前后下一个词元的概率。</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="629" />
            <source>No trace yet.</source>
            <translation>尚无注意力轨迹。</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="632" />
            <source>Head statistics need every map at once; this sentence is too long for that. Its maps are computed one head at a time.</source>
            <translation>注意力头统计需要同时用到全部注意力图，而这个句子太长，无法一次算出。它的注意力图是逐个头按需计算的。</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="334" />
            <source>Computing {analysis}…</source>
            <translation>正在计算{analysis}…</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="338" />
            <source>This model cannot give its scores (Hugging Face returns weights only)</source>
            <translation>该模型无法给出分数（Hugging Face 只返回权重）</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="464" />
            <source>This model has no {kind}.</source>
            <translation>这个模型没有{kind}。</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="733" />
            <source>Hugging Face models keep their positions inside their own code: only heads can be switched off here</source>
            <translation>Hugging Face 模型的位置信息在它自己的代码里：这里只能关闭注意力头</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="487" />
            <source>&lt;h3&gt;Nothing to show yet&lt;/h3&gt;&lt;p&gt;Edit the source sentence to run the model.&lt;/p&gt;</source>
            <translation>&lt;h3&gt;暂无可显示的内容&lt;/h3&gt;&lt;p&gt;编辑源句即可运行模型。&lt;/p&gt;</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="743" />
            <source>⚠ ablation: {what}</source>
            <translation>⚠ 消融：{what}</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/bindings.py" line="484" />
            <source>&lt;h3&gt;This model has no {kind}&lt;/h3&gt;&lt;p&gt;Choose another kind of attention.&lt;/p&gt;</source>
            <translation>&lt;h3&gt;该模型没有{kind}&lt;/h3&gt;&lt;p&gt;请选择另一种注意力。&lt;/p&gt;</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/main_window.py" line="115" />
            <source>Attention Scope</source>
            <translation>Attention Scope</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/main_window.py" line="264" />
            <source>Open a model</source>
            <translation>打开模型</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/main_window.py" line="265" />
            <source>Models (*.safetensors *.pt *.pth *.bin *.ckpt config.json);;All files (*)</source>
            <translation>模型 (*.safetensors *.pt *.pth *.bin *.ckpt config.json);;所有文件 (*)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/menus.py" line="41" />
            <source>&amp;File</source>
            <translation>文件(&amp;F)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/menus.py" line="46" />
            <source>&amp;Export</source>
            <translation>导出(&amp;E)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/menus.py" line="51" />
            <source>&amp;Go</source>
            <translation>跳转(&amp;G)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/menus.py" line="57" />
            <source>&amp;Show</source>
            <translation>显示(&amp;S)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/menus.py" line="64" />
            <source>&amp;Model</source>
            <translation>模型(&amp;M)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/menus.py" line="73" />
            <source>&amp;View</source>
            <translation>视图(&amp;V)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/menus.py" line="74" />
            <source>P&amp;anels</source>
            <translation>面板(&amp;A)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/menus.py" line="83" />
            <source>&amp;Theme</source>
            <translation>主题(&amp;T)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/menus.py" line="89" />
            <source>Lan&amp;guage</source>
            <translation>语言(&amp;G)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/menus.py" line="97" />
            <source>&amp;Help</source>
            <translation>帮助(&amp;H)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/menus.py" line="99" />
            <source>Explain &amp;panel</source>
            <translation>讲解面板(&amp;P)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/menus.py" line="106" />
            <source>Presenting</source>
            <translation>演示</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/menus.py" line="92" />
            <source>Follow the system</source>
            <translation>跟随系统</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/model_panels.py" line="35" />
            <source>Model inspector</source>
            <translation>模型检视器</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/model_panels.py" line="37" />
            <source>Train</source>
            <translation>训练</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/model_panels.py" line="93" />
            <source>Compare with another checkpoint</source>
            <translation>与另一个检查点比较</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/model_panels.py" line="107" />
            <source>Comparison ready</source>
            <translation>比较完成</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/model_panels.py" line="89" />
            <source>Open a model and type a sentence first: the comparison runs on it.</source>
            <translation>请先打开模型并输入一个句子：比较将在这个句子上进行。</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="322" />
            <source>Attention heatmap</source>
            <translation>注意力热力图</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="323" />
            <source>Masks</source>
            <translation>掩码</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="327" />
            <source>Sentence</source>
            <translation>句子</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="330" />
            <source>Heads</source>
            <translation>注意力头</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="332" />
            <source>Next token</source>
            <translation>下一个词元</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="337" />
            <source>Positional encoding</source>
            <translation>位置编码</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="341" />
            <source>What can I type?</source>
            <translation>可以输入什么？</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="346" />
            <source>Ablation</source>
            <translation>消融</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="76" />
            <source>Open model…</source>
            <translation>打开模型…</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="83" />
            <source>Cancel loading</source>
            <translation>取消加载</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="188" />
            <source>All heads</source>
            <translation>所有注意力头</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="189" />
            <source>Head statistics</source>
            <translation>注意力头统计</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="269" />
            <source>Heads or the positional encoding are switched off: the model is not intact</source>
            <translation>有注意力头或位置编码被关闭：当前不是完整的原始模型</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="282" />
            <source>no model</source>
            <translation>无模型</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="287" />
            <source>Stop run</source>
            <translation>停止运行</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="288" />
            <source>Stop waiting for this run (Esc); the result on screen stays</source>
            <translation>不再等待本次运行（Esc）；屏幕上的结果保持不变</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="294" />
            <source>Model activity</source>
            <translation>模型运行状态</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="294" />
            <source>Loaded model</source>
            <translation>已加载的模型</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="295" />
            <source>Device and number format</source>
            <translation>设备与数值格式</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="296" />
            <source>Duration of the last model call</source>
            <translation>上一次模型调用的耗时</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="333" />
            <source>Show or hide the &amp;next-token panel</source>
            <translation>显示或隐藏下一个词元面板(&amp;N)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="334" />
            <source>What the model would say next; while presenting on a screen narrower than 1,600 pixels it waits for this key</source>
            <translation>模型接下来会说什么；在宽度不足 1600 像素的屏幕上演示时，按此键才显示</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="343" />
            <source>&amp;What can I type?</source>
            <translation>可以输入什么？(&amp;W)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/parts.py" line="344" />
            <source>The words this model knows, and sentences it translates correctly</source>
            <translation>这个模型认识的词，以及它能正确翻译的句子</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/playback.py" line="41" />
            <source>Pa&amp;use</source>
            <translation>暂停(&amp;U)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/session_files.py" line="45" />
            <source>Save session</source>
            <translation>保存会话</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/session_files.py" line="47" />
            <source>Attention Scope sessions (*.scope.json *.json)</source>
            <translation>Attention Scope 会话 (*.scope.json *.json)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/session_files.py" line="67" />
            <source>Open session</source>
            <translation>打开会话</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/session_files.py" line="68" />
            <source>Attention Scope sessions (*.scope.json *.json);;All files (*)</source>
            <translation>Attention Scope 会话 (*.scope.json *.json);;所有文件 (*)</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/session_files.py" line="42" />
            <source>Open a model first: a session starts from one.</source>
            <translation>请先打开一个模型：会话要以模型为基础。</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/session_files.py" line="61" />
            <source>Session saved to {path}</source>
            <translation>会话已保存到 {path}</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/session_files.py" line="58" />
            <source>Could not save the session: {reason}</source>
            <translation>无法保存会话：{reason}</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/status.py" line="111" />
            <source>working…</source>
            <translation>运行中…</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/status.py" line="96" />
            <source>last model call {ms} ms</source>
            <translation>上次模型调用耗时 {ms} 毫秒</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/wiring.py" line="73" />
            <source>Continue on the CPU</source>
            <translation>改在 CPU 上继续</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/wiring.py" line="88" />
            <source>The overview of every head could not be computed: {error}</source>
            <translation>无法计算所有注意力头的总览：{error}</translation>
        </message>
        <message>
            <source>Attention rollout: source tokens reaching each decoder position · step {step} / {total}</source>
            <translation type="vanished">注意力展开：到达每个解码器位置的源词元 · 第 {step} / {total} 步</translation>
        </message>
        <message>
            <source>Value zeroing · {kind} · layer {layer}, every head · step {step} / {total}</source>
            <translation type="vanished">值置零 · {kind} · 第 {layer} 层，全部头 · 第 {step} / {total} 步</translation>
        </message>
        <message>
            <source>‖α·f(x)‖ · {kind} · layer {layer} · {head} · step {step} / {total}</source>
            <translation type="vanished">‖α·f(x)‖ · {kind} · 第 {layer} 层 · {head} · 第 {step} / {total} 步</translation>
        </message>
        <message>
            <source>rollout share</source>
            <translation type="vanished">注意力展开占比</translation>
        </message>
        <message>
            <source>Computing the attribution…</source>
            <translation type="vanished">正在计算归因…</translation>
        </message>
        <message>
            <source>Computing the contributions…</source>
            <translation type="vanished">正在计算贡献…</translation>
        </message>
        <message>
            <source>Computing value zeroing…</source>
            <translation type="vanished">正在计算值置零…</translation>
        </message>
        <message>
            <source>{error}; opened {fallback} instead</source>
            <translation type="vanished">{error}；已改为打开 {fallback}</translation>
        </message>
        <message>
            <source>&amp;Alignment with gold links</source>
            <translation type="vanished">与标准对齐比较(&amp;A)</translation>
        </message>
        <message>
            <source>{title} · rows {r0}–{r1} of {rows}, columns {c0}–{c1} of {cols}</source>
            <translation type="vanished">{title} · 第 {r0}–{r1} 行（共 {rows} 行），第 {c0}–{c1} 列（共 {cols} 列）</translation>
        </message>
        <message>
            <source>Hugging Face models run their own code: heads cannot be switched off here</source>
            <translation type="vanished">Hugging Face 模型运行的是它们自己的代码：无法在这里关闭注意力头</translation>
        </message>
        <message>
            <source>Step {step} is target padding (after &lt;eos&gt;): the row is masked out and predicts nothing.</source>
            <translation type="vanished">第 {step} 步是目标端填充（在 &lt;eos&gt; 之后）：这一行被掩码屏蔽，不做任何预测。</translation>
        </message>
        <message>
            <source>query: decoder input → token it predicts</source>
            <translation type="vanished">查询：解码器输入 → 它预测的词元</translation>
        </message>
        <message>
            <source>Label each decoder row by its input token instead of the token it predicts</source>
            <translation type="vanished">用输入词元而不是它预测的词元来标注解码器的每一行</translation>
        </message>
    </context>
    <context>
        <name>Minimap</name>
        <message>
            <location filename="../../viz_app/widgets/minimap.py" line="83" />
            <source>The whole map, each pixel the largest weight of its block. The rectangle is the part shown: click or drag to move it, scroll for rows (Shift: columns).</source>
            <translation>整张注意力图的缩略图，每个像素取其所在区块中的最大权重。方框是当前显示的部分：单击或拖动可移动方框，滚动滚轮可上下移动行（按住 Shift 则左右移动列）。</translation>
        </message>
    </context>
    <context>
        <name>ModelInspector</name>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="59" />
            <source>source embedding</source>
            <translation>源端嵌入</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="60" />
            <source>target embedding</source>
            <translation>目标端嵌入</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="61" />
            <source>shared embedding (source and target)</source>
            <translation>共享嵌入（源端与目标端）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="62" />
            <source>positional</source>
            <translation>位置编码</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="63" />
            <source>embedding norms</source>
            <translation>嵌入层的归一化</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="64" />
            <source>final norms</source>
            <translation>最后的归一化层</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="65" />
            <source>output projection</source>
            <translation>输出投影</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="66" />
            <source>other</source>
            <translation>其他</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="114" />
            <source>Model</source>
            <translation>模型</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="116" />
            <source>name</source>
            <translation>名称</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="117" />
            <source>format</source>
            <translation>格式</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="118" />
            <source>file</source>
            <translation>文件</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="119" />
            <source>device</source>
            <translation>设备</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="120" />
            <source>vocabularies</source>
            <translation>词表</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="123" />
            <source>Attention</source>
            <translation>注意力</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="124" />
            <source>family</source>
            <translation>模型家族</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="125" />
            <source>heads</source>
            <translation>头</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="127" />
            <source>Parameters</source>
            <translation>参数</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="132" />
            <source>total</source>
            <translation>总计</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="139" />
            <source>Configuration</source>
            <translation>配置</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="168" />
            <source>query</source>
            <translation>查询</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="169" />
            <source>key</source>
            <translation>键</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="230" />
            <source>Summary</source>
            <translation>概要</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="232" />
            <source>Compare</source>
            <translation>比较</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="262" />
            <source>weight value</source>
            <translation>权重值</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="263" />
            <source>count</source>
            <translation>个数</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="274" />
            <source>mean per layer</source>
            <translation>各层均值</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="274" />
            <source>standard deviation per layer</source>
            <translation>各层标准差</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="313" />
            <source>Compare with another checkpoint…</source>
            <translation>与另一个检查点比较…</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="314" />
            <source>Open a second checkpoint of the same architecture and show how its attention differs for the current sentence</source>
            <translation>打开同一结构的第二个检查点，显示它对当前句子的注意力有何不同</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="347" />
            <source>No comparison yet: compare this checkpoint with another one of the same architecture (for example two epochs, or two random seeds).</source>
            <translation>尚未比较：可将此检查点与另一个同结构的检查点进行比较（例如两个不同的训练轮次，或两个不同的随机种子）。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="560" />
            <source>both teacher-forced on the typed target</source>
            <translation>两者均以输入的目标句进行教师强制</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="561" />
            <source>both teacher-forced on A's greedy translation</source>
            <translation>两者均以 A 的贪心解码译文进行教师强制</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="136" />
            <source>buffers (tables, not trained)</source>
            <translation>缓冲区（查找表，不参与训练）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="138" />
            <source>one shared tensor</source>
            <translation>共享同一张量</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="240" />
            <source>Property</source>
            <translation>属性</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="240" />
            <source>Value</source>
            <translation>值</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="280" />
            <source>layer</source>
            <translation>层</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="301" />
            <source>Each layer, over all its weight matrices:</source>
            <translation>每一层（统计该层全部权重矩阵）：</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="336" />
            <source>head</source>
            <translation>头</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="442" />
            <source>No weight matrices to show.</source>
            <translation>没有可显示的权重矩阵。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="540" />
            <source>This model has no layers of this kind.</source>
            <translation>该模型没有这种类型的层。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="551" />
            <source>layer {layer}, head {head}</source>
            <translation>第 {layer} 层，头 {head}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="558" />
            <source>B − A (red: B attends more, blue: A does)</source>
            <translation>B − A（红：B 关注更多，蓝：A 关注更多）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="82" />
            <source>decoder layer {index}</source>
            <translation>解码器第 {index} 层</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="121" />
            <source>source {src:,}, target {tgt:,} tokens</source>
            <translation>源端 {src:,} 个词元，目标端 {tgt:,} 个词元</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="125" />
            <source>{heads} of {size} dimensions</source>
            <translation>{heads} 个，每个 {size} 维</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="286" />
            <source>encoder</source>
            <translation>编码器</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="286" />
            <source>decoder</source>
            <translation>解码器</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="449" />
            <source>{name} — {group}, {count:,} values: mean {mean:.4g}, std {std:.4g}, min {min:.4g}, max {max:.4g}</source>
            <translation>{name} — {group}，共 {count:,} 个值：均值 {mean:.4g}，标准差 {std:.4g}，最小值 {min:.4g}，最大值 {max:.4g}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="562" />
            <source>largest change in this head: {value:.3g}; in all {kind} maps: {all:.3g} ({how})</source>
            <translation>该头的最大变化：{value:.3g}；所有{kind}图中的最大变化：{all:.3g}（{how}）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="81" />
            <source>encoder layer {index}</source>
            <translation>编码器第 {index} 层</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="134" />
            <source>size ({dtype})</source>
            <translation>大小（{dtype}）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="552" />
            <source>A: {name} ({where})</source>
            <translation>A：{name}（{where}）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/inspector.py" line="554" />
            <source>B: {name} ({where})</source>
            <translation>B：{name}（{where}）</translation>
        </message>
        <message>
            <source>Encoder self-attention</source>
            <translation type="vanished">编码器自注意力</translation>
        </message>
        <message>
            <source>Decoder self-attention</source>
            <translation type="vanished">解码器自注意力</translation>
        </message>
        <message>
            <source>Cross-attention</source>
            <translation type="vanished">交叉注意力</translation>
        </message>
        <message>
            <source>B − A</source>
            <translation type="vanished">B − A</translation>
        </message>
    </context>
    <context>
        <name>NextToken</name>
        <message>
            <location filename="../../viz_app/widgets/next_token.py" line="71" />
            <source>probability</source>
            <translation>概率</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/next_token.py" line="159" />
            <source>typed target token {token}: p = {p}, rank {rank} of {total}</source>
            <translation>输入的目标词元 {token}：p = {p}，在 {total} 个词元中排第 {rank}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/next_token.py" line="161" />
            <source>chosen token {token}: p = {p}, rank {rank} of {total}</source>
            <translation>选中的词元 {token}：p = {p}，在 {total} 个词元中排第 {rank}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/next_token.py" line="168" />
            <source>{caption} — the model preferred {token} ({p})</source>
            <translation>{caption} — 模型更倾向于 {token}（{p}）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/next_token.py" line="81" />
            <source>beam hypothesis</source>
            <translation>束搜索候选</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/next_token.py" line="81" />
            <source>score</source>
            <translation>得分</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/next_token.py" line="82" />
            <source>finished</source>
            <translation>已结束</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/next_token.py" line="109" />
            <source>empty distribution</source>
            <translation>空分布</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/next_token.py" line="156" />
            <source>next-token distribution: top {k} of {total}</source>
            <translation>下一个词元的分布：{total} 个中的前 {k} 个</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/next_token.py" line="136" />
            <source>{token} {p} (rank {rank})</source>
            <translation>{token} {p}（第 {rank} 名）</translation>
        </message>
    </context>
    <context>
        <name>Overlays</name>
        <message>
            <location filename="../../viz_app/widgets/heatmap.py" line="86" />
            <source>source padding</source>
            <translation>源端填充</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/heatmap.py" line="87" />
            <source>target padding</source>
            <translation>目标端填充</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/heatmap.py" line="88" />
            <source>causal</source>
            <translation>因果</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/heatmap.py" line="89" />
            <source>combined</source>
            <translation>组合</translation>
        </message>
    </context>
    <context>
        <name>Positional</name>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="57" />
            <source>this model has no positional encoding</source>
            <translation>该模型没有位置编码</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="58" />
            <source>Its encoder sees the source as a bag of tokens; word order reaches the decoder only through the causal mask.</source>
            <translation>它的编码器把源句看作一袋无序的词元；词序只能通过因果掩码传到解码器。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="91" />
            <source>curves</source>
            <translation>曲线</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="92" />
            <source>table</source>
            <translation>表格</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="93" />
            <source>similarity</source>
            <translation>相似度</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="390" />
            <source>Position similarity needs an absolute position table; this model adds a learned bias per relative distance instead.</source>
            <translation>位置相似度需要绝对位置编码表；这个模型改为按相对距离加上一个可学习的偏置。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="77" />
            <source>dim {index}</source>
            <translation>维度 {index}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="109" />
            <source>First dimension drawn: low dimensions turn fast, high ones slowly</source>
            <translation>从哪一维开始画：低维变化快，高维变化慢</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="111" />
            <source>How many dimensions are drawn</source>
            <translation>画出多少个维度</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="76" />
            <source>dim {index} (cos)</source>
            <translation>维度 {index}（cos）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="115" />
            <source>dimensions from</source>
            <translation>起始维度</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="117" />
            <source>count</source>
            <translation>个数</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="203" />
            <source>distance query − key</source>
            <translation>距离：查询 − 键</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="206" />
            <source>expected q·k (q = k)</source>
            <translation>q·k 的期望值（q = k）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="207" />
            <source>RoFormer's decay bound</source>
            <translation>RoFormer 的衰减上界</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="215" />
            <source>dimension pair</source>
            <translation>维度对</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="221" />
            <source>angle (radians)</source>
            <translation>角度（弧度）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="265" />
            <source>{message}. {detail}</source>
            <translation>{message}。{detail}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="303" />
            <source>positions 0–{last} of {total}</source>
            <translation>位置 0–{last}（共 {total} 个）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="312" />
            <source>position</source>
            <translation>位置</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="313" />
            <source>PE(pos, i)</source>
            <translation>PE(pos, i)</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="332" />
            <source>dimension</source>
            <translation>维度</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="357" />
            <source>encoder self-attention</source>
            <translation>编码器自注意力</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="357" />
            <source>decoder self-attention</source>
            <translation>解码器自注意力</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="75" />
            <source>dim {index} (sin)</source>
            <translation>维度 {index}（sin）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="202" />
            <source>q·k against distance (rotary)</source>
            <translation>q·k 随距离的变化（旋转位置编码）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="213" />
            <source>positions per turn of each dimension pair</source>
            <translation>每个维度对转一圈所需的位置数</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="308" />
            <source>sinusoidal encoding: PE(pos, i), {span}</source>
            <translation>正弦位置编码：PE(pos, i)，{span}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="310" />
            <source>learned encoding: PE(pos, i), {span}</source>
            <translation>可学习位置编码：PE(pos, i)，{span}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="358" />
            <source>stack {index}</source>
            <translation>堆叠 {index}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="365" />
            <source>distance key − query</source>
            <translation>距离（键 − 查询）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="366" />
            <source>bias added to the score</source>
            <translation>加到分数上的偏置</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="385" />
            <source>head</source>
            <translation>头</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="400" />
            <source>current sentence ({count} tokens)</source>
            <translation>当前句子（{count} 个词元）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="331" />
            <source>PE table ({span} × {dims} dimensions)</source>
            <translation>PE 表（{span} × {dims} 维）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="342" />
            <source>cosine similarity of position vectors ({span})</source>
            <translation>位置向量的余弦相似度（{span}）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="218" />
            <source>rotation of a query at position {position}</source>
            <translation>位置 {position} 上查询向量的旋转</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="372" />
            <source>head {index}</source>
            <translation>头 {index}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="384" />
            <source>{stack}: heads × distance</source>
            <translation>{stack}：头 × 距离</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/positional.py" line="364" />
            <source>{stack}: bias per head</source>
            <translation>{stack}：各头的偏置</translation>
        </message>
    </context>
    <context>
        <name>Quote</name>
        <message>
            <location filename="../../viz_app/i18n/__init__.py" line="40" />
            <source>'{text}'</source>
            <translation>“{text}”</translation>
        </message>
    </context>
    <context>
        <name>Ranks</name>
        <message>
            <location filename="../../viz_app/widgets/ranks.py" line="51" />
            <source>{token}: rank {rank} of {total}: the model preferred {better} other tokens</source>
            <translation>{token}：在 {total} 个词中排第 {rank}，模型更看好另外 {better} 个词</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ranks.py" line="42" />
            <source>#{rank}</source>
            <translation>第{rank}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ranks.py" line="48" />
            <source>{token}: no prediction at this position</source>
            <translation>{token}：这个位置不做预测</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/ranks.py" line="50" />
            <source>{token}: rank 1 of {total}: the model's own first choice</source>
            <translation>{token}：在 {total} 个词中排第 1，正是模型自己的首选</translation>
        </message>
    </context>
    <context>
        <name>ReportDialog</name>
        <message>
            <location filename="../../viz_app/window/report_dialog.py" line="34" />
            <source>entropy</source>
            <translation>熵</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/report_dialog.py" line="35" />
            <source>max weight</source>
            <translation>最大权重</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/report_dialog.py" line="36" />
            <source>distance</source>
            <translation>距离</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/report_dialog.py" line="37" />
            <source>on &lt;eos&gt;</source>
            <translation>落在 &lt;eos&gt;</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/report_dialog.py" line="38" />
            <source>monotonic</source>
            <translation>单调性</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/report_dialog.py" line="39" />
            <source>coverage</source>
            <translation>覆盖度</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/report_dialog.py" line="40" />
            <source>AER</source>
            <translation>AER</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/report_dialog.py" line="41" />
            <source>Δ log p off</source>
            <translation>关闭后 Δ log p</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/report_dialog.py" line="67" />
            <source>attention</source>
            <translation>注意力</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/report_dialog.py" line="67" />
            <source>layer</source>
            <translation>层</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/report_dialog.py" line="67" />
            <source>head</source>
            <translation>头</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/report_dialog.py" line="81" />
            <source>Show in the window</source>
            <translation>在主窗口中显示</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/report_dialog.py" line="98" />
            <source>Every head over the corpus; pick one to see the sentences where it behaves most unusually (entropy farthest from its mean).</source>
            <translation>语料库上每个头的统计；选中一个头，可查看它表现最反常的句子（熵离它的平均值最远）。</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/report_dialog.py" line="63" />
            <source>Report card: {folder}</source>
            <translation>报告卡：{folder}</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/report_dialog.py" line="144" />
            <source>{kind}, layer {layer}, head {head}: mean entropy {mean}</source>
            <translation>{kind}，第 {layer} 层，头 {head}：平均熵 {mean}</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/report_dialog.py" line="148" />
            <source>sentence {n}, entropy {entropy}:
{source}
→ {target}</source>
            <translation>第 {n} 句，熵 {entropy}：
{source}
→ {target}</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/report_dialog.py" line="154" />
            <source>No sentence recorded for this head</source>
            <translation>这个头没有记录到句子</translation>
        </message>
        <message>
            <source>encoder self</source>
            <translation type="vanished">编码器自注意力</translation>
        </message>
        <message>
            <source>decoder self</source>
            <translation type="vanished">解码器自注意力</translation>
        </message>
        <message>
            <source>cross</source>
            <translation type="vanished">交叉注意力</translation>
        </message>
    </context>
    <context>
        <name>Settings</name>
        <message>
            <location filename="../../viz_app/scope/settings.py" line="103" />
            <source>Some saved settings could not be read and their defaults are used ({keys}).</source>
            <translation>部分已保存的设置无法读取，已改用默认值（{keys}）。</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/settings.py" line="143" />
            <source>The settings file was damaged: it was set aside as {copy}, and what could not be read is back to its default.</source>
            <translation>设置文件已损坏：原文件已另存为 {copy}，无法读取的设置已恢复为默认值。</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/settings.py" line="146" />
            <source>The settings file {file} is damaged: what could not be read is back to its default.</source>
            <translation>设置文件 {file} 已损坏：无法读取的设置已恢复为默认值。</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/settings.py" line="179" />
            <source>Settings cannot be saved to {file} ({reason}): what you change is kept until you quit.</source>
            <translation>无法将设置保存到 {file}（{reason}）：你所做的更改在退出程序之前仍然有效。</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/settings.py" line="118" />
            <source>The settings file {file} cannot be read: the defaults are used.</source>
            <translation>无法读取设置文件 {file}：已改用默认值。</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/settings.py" line="168" />
            <source>{folder} is not a folder</source>
            <translation>{folder} 不是文件夹</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/settings.py" line="181" />
            <source>access denied</source>
            <translation>拒绝访问</translation>
        </message>
    </context>
    <context>
        <name>Shortcut</name>
        <message>
            <location filename="../../viz_app/desktop/menu_entry.py" line="319" />
            <source>No Attention Scope shortcut was installed.</source>
            <translation>此前未安装 Attention Scope 快捷方式。</translation>
        </message>
        <message>
            <location filename="../../viz_app/desktop/menu_entry.py" line="205" />
            <source>wrote {path}</source>
            <translation>已写入 {path}</translation>
        </message>
        <message>
            <location filename="../../viz_app/desktop/menu_entry.py" line="235" />
            <source>removed {path}</source>
            <translation>已删除 {path}</translation>
        </message>
        <message>
            <location filename="../../viz_app/desktop/menu_entry.py" line="323" />
            <source>would call pyshortcuts.make_shortcut({arguments})</source>
            <translation>将调用 pyshortcuts.make_shortcut({arguments})</translation>
        </message>
        <message>
            <location filename="../../viz_app/desktop/menu_entry.py" line="185" />
            <source>would write {path}</source>
            <translation>将写入 {path}</translation>
        </message>
        <message>
            <location filename="../../viz_app/desktop/menu_entry.py" line="228" />
            <source>would remove {path}</source>
            <translation>将删除 {path}</translation>
        </message>
        <message>
            <location filename="../../viz_app/desktop/menu_entry.py" line="300" />
            <source>Attention Scope is in the application menu (uninstall: attention-scope uninstall-shortcut).</source>
            <translation>Attention Scope 已加入应用程序菜单（卸载：attention-scope uninstall-shortcut）。</translation>
        </message>
        <message>
            <location filename="../../viz_app/desktop/menu_entry.py" line="308" />
            <source>attention-scope: {error}</source>
            <translation>attention-scope：{error}</translation>
        </message>
        <message>
            <location filename="../../viz_app/desktop/menu_entry.py" line="304" />
            <source>No Attention Scope shortcut was installed under {path}.</source>
            <translation>{path} 下此前未安装 Attention Scope 快捷方式。</translation>
        </message>
    </context>
    <context>
        <name>State</name>
        <message>
            <location filename="../../viz_app/scope/state.py" line="42" />
            <source>Encoder self-attention</source>
            <translation>编码器自注意力</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/state.py" line="43" />
            <source>encoder</source>
            <translation>编码器</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/state.py" line="44" />
            <source>Decoder self-attention (masked)</source>
            <translation>解码器自注意力（带掩码）</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/state.py" line="44" />
            <source>Decoder self-attention</source>
            <translation>解码器自注意力</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/state.py" line="45" />
            <source>decoder</source>
            <translation>解码器</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/state.py" line="46" />
            <source>Cross-attention (decoder → encoder)</source>
            <translation>交叉注意力（解码器 → 编码器）</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/state.py" line="46" />
            <source>Cross-attention</source>
            <translation>交叉注意力</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/state.py" line="47" />
            <source>cross</source>
            <translation>交叉</translation>
        </message>
    </context>
    <context>
        <name>Theme</name>
        <message>
            <location filename="../../viz_app/window/theme.py" line="22" />
            <source>Follow the system</source>
            <translation>跟随系统</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/theme.py" line="23" />
            <source>Light</source>
            <translation>浅色</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/theme.py" line="24" />
            <source>Dark</source>
            <translation>深色</translation>
        </message>
    </context>
    <context>
        <name>TokenChips</name>
        <message>
            <location filename="../../viz_app/widgets/chips.py" line="44" />
            <source>normal</source>
            <translation>普通</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/chips.py" line="45" />
            <source>special</source>
            <translation>特殊</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/chips.py" line="46" />
            <source>unknown</source>
            <translation>未知</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/chips.py" line="47" />
            <source>padding</source>
            <translation>填充</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/chips.py" line="371" />
            <source>token {index}: {token} ({kind})</source>
            <translation>词元 {index}：{token}（{kind}）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/chips.py" line="376" />
            <source>A word the model does not know: it sees only this unknown token here, so the translation may turn to nonsense. Model ▸ What can I type? (F2) lists the words it knows.</source>
            <translation>模型不认识这个词：它在这里只看到一个“未知”词元，译文可能因此乱套。“模型 ▸ 可以输入什么？”（F2）列出了它认识的词。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/chips.py" line="386" />
            <source>value</source>
            <translation>数值</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/chips.py" line="387" />
            <source>{label}: {value}</source>
            <translation>{label}：{value}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/chips.py" line="375" />
            <source>You typed “{word}”.</source>
            <translation>你输入的是“{word}”。</translation>
        </message>
    </context>
    <context>
        <name>TrainingRunner</name>
        <message>
            <location filename="../../viz_app/workers/training_worker.py" line="80" />
            <source>no task was chosen</source>
            <translation>未选择任务</translation>
        </message>
        <message>
            <location filename="../../viz_app/workers/training_worker.py" line="84" />
            <source>epochs, probe interval, batch size and log interval must be at least 1</source>
            <translation>轮数、探针间隔、批大小和日志间隔都必须至少为 1</translation>
        </message>
        <message>
            <location filename="../../viz_app/workers/training_worker.py" line="86" />
            <source>the output checkpoint must end with .safetensors</source>
            <translation>输出检查点的文件名必须以 .safetensors 结尾</translation>
        </message>
        <message>
            <location filename="../../viz_app/workers/training_worker.py" line="373" />
            <source>there is no model to save yet</source>
            <translation>还没有可保存的模型</translation>
        </message>
        <message>
            <location filename="../../viz_app/workers/training_worker.py" line="480" />
            <source>a training run is already going: stop it first</source>
            <translation>已有训练正在进行：请先停止它</translation>
        </message>
        <message>
            <location filename="../../viz_app/workers/training_worker.py" line="541" />
            <source>a checkpoint file name must end with .safetensors</source>
            <translation>检查点文件名必须以 .safetensors 结尾</translation>
        </message>
        <message>
            <location filename="../../viz_app/workers/training_worker.py" line="547" />
            <source>there is no model to save yet: start a training run first</source>
            <translation>还没有可保存的模型：请先开始训练</translation>
        </message>
        <message>
            <location filename="../../viz_app/workers/training_worker.py" line="387" />
            <source>the GPU ran out of memory: choose the tiny size, or train on the CPU (start with {env}=cpu)</source>
            <translation>GPU 显存不足：请选择“微型”规模，或在 CPU 上训练（启动时设置 {env}=cpu）</translation>
        </message>
        <message>
            <location filename="../../viz_app/workers/training_worker.py" line="82" />
            <source>unknown model size {size}</source>
            <translation>未知的模型规模 {size}</translation>
        </message>
    </context>
    <context>
        <name>TrainingView</name>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="51" />
            <source>tiny</source>
            <translation>微型</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="51" />
            <source>small</source>
            <translation>小型</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="57" />
            <source>copy (output = input)</source>
            <translation>复制（输出 = 输入）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="58" />
            <source>reverse the sequence</source>
            <translation>反转序列</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="59" />
            <source>sort the symbols</source>
            <translation>符号排序</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="60" />
            <source>English → French (toy grammar)</source>
            <translation>英语 → 法语（教学用小语法）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="61" />
            <source>English → Chinese (toy grammar)</source>
            <translation>英语 → 中文（教学用小语法）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="106" />
            <source>TSV file…</source>
            <translation>TSV 文件…</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="107" />
            <source>What to learn: a demo task, or your own file of source&lt;TAB&gt;target lines</source>
            <translation>学习什么：一个演示任务，或你自己的文件（每行为 源句&lt;TAB&gt;目标句）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="116" />
            <source>Model size: tiny trains in seconds on a CPU; small learns the translation tasks better</source>
            <translation>模型规模：微型在 CPU 上几秒钟就能训练完；小型能更好地学会翻译任务</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="123" />
            <source>Passes over the training sentences</source>
            <translation>遍历全部训练句子的次数</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="128" />
            <source> steps</source>
            <translation> 步</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="129" />
            <source>Redraw the probe sentence's attention every this many training steps</source>
            <translation>每隔这么多个训练步，重绘一次探针句的注意力</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="143" />
            <source>Start</source>
            <translation>开始</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="144" />
            <source>Train a new model from scratch on the chosen task</source>
            <translation>在所选任务上从零训练一个新模型</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="145" />
            <source>Pause</source>
            <translation>暂停</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="146" />
            <source>Pause or resume training</source>
            <translation>暂停或继续训练</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="147" />
            <source>Stop</source>
            <translation>停止</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="148" />
            <source>End the run after the current step</source>
            <translation>在当前步完成后结束训练</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="149" />
            <source>Save checkpoint…</source>
            <translation>保存检查点…</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="150" />
            <source>Write the best model so far (lowest validation loss; the current one before the first epoch ends) to a .safetensors file</source>
            <translation>把目前最好的模型（验证集损失最低者；第一轮结束前则为当前模型）写入 .safetensors 文件</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="186" />
            <source>Which attention of the probe sentence to show</source>
            <translation>显示探针句的哪一种注意力</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="187" />
            <source>Layer (the last one learns the clearest alignment)</source>
            <translation>层（最后一层学到的对齐最清晰）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="188" />
            <source>One head, or the mean of all heads</source>
            <translation>单个注意力头，或所有头的平均</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="348" />
            <source>Choose a training corpus</source>
            <translation>选择训练语料</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="349" />
            <source>Tab-separated text (*.tsv *.txt);;All files (*)</source>
            <translation>制表符分隔文本 (*.tsv *.txt);;所有文件 (*)</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="358" />
            <source>Save the trained model</source>
            <translation>保存训练好的模型</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="359" />
            <source>Attention Scope checkpoint (*.safetensors)</source>
            <translation>Attention Scope 检查点 (*.safetensors)</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="448" />
            <source>query: decoder input</source>
            <translation>查询：解码器输入</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="450" />
            <source>mean of heads</source>
            <translation>各头平均</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="510" />
            <source>Choose a task and a size, then press Start to train a model from scratch.</source>
            <translation>选择任务和规模，然后点击“开始”，从零训练一个模型。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="133" />
            <source>Task:</source>
            <translation>任务：</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="133" />
            <source>Size:</source>
            <translation>规模：</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="134" />
            <source>Epochs:</source>
            <translation>轮数：</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="135" />
            <source>Redraw attention every:</source>
            <translation>注意力重绘间隔：</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="171" />
            <source>Loss</source>
            <translation>损失</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="172" />
            <source>training step</source>
            <translation>训练步</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="173" />
            <source>cross-entropy (nats / token)</source>
            <translation>交叉熵（nats / 词元）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="175" />
            <source>train loss</source>
            <translation>训练损失</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="177" />
            <source>validation loss</source>
            <translation>验证集损失</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="192" />
            <source>Map:</source>
            <translation>注意力图：</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="192" />
            <source>Layer:</source>
            <translation>层：</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="193" />
            <source>Head:</source>
            <translation>头：</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="370" />
            <source>Resume</source>
            <translation>继续</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="444" />
            <source>query: source token</source>
            <translation>查询：源词元</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="444" />
            <source>key: source token</source>
            <translation>键：源词元</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="449" />
            <source>key: decoder input</source>
            <translation>键：解码器输入</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="452" />
            <source>{kind} · L{layer} · {head} · step {step}</source>
            <translation>{kind} · L{layer} · {head} · 第 {step} 步</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="512" />
            <source>Preparing the task and building the model…</source>
            <translation>正在准备任务并构建模型…</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="534" />
            <source>The probe sentence's attention appears here after the first step.</source>
            <translation>第一步完成后，探针句的注意力将显示在这里。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="536" />
            <source>Start a run to watch the attention of a held-out sentence form as the model learns.</source>
            <translation>开始训练，观察一个留出句子的注意力如何随着模型的学习而形成。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="335" />
            <source>Saving the checkpoint to {path}…</source>
            <translation>正在把检查点保存到 {path}…</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="382" />
            <source>Probe (a held-out example): {source} → {target}</source>
            <translation>探针句（留出样例）：{source} → {target}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="420" />
            <source>Error: {message}</source>
            <translation>错误：{message}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="424" />
            <source>Checkpoint saved to {path}</source>
            <translation>检查点已保存到 {path}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="428" />
            <source>Could not save the checkpoint: {message}</source>
            <translation>无法保存检查点：{message}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="450" />
            <source>head {head}</source>
            <translation>头 {head}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="487" />
            <source>epoch {epoch} / {epochs}</source>
            <translation>第 {epoch} / {epochs} 轮</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="488" />
            <source>step {step} / {total}</source>
            <translation>第 {step} / {total} 步</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="490" />
            <source>{rate} tokens/s</source>
            <translation>{rate} 词元/秒</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="493" />
            <source>train loss {loss}</source>
            <translation>训练损失 {loss}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="496" />
            <source>lr {lr}</source>
            <translation>学习率 {lr}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="497" />
            <source>elapsed {time}</source>
            <translation>已用时 {time}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="464" />
            <source>layer {layer}</source>
            <translation>第 {layer} 层</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="495" />
            <source>best validation loss {loss}</source>
            <translation>最佳验证集损失 {loss}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="514" />
            <source>Training “{task}” ({size}, {params} parameters) on {device} with {n} sentences.</source>
            <translation>正在 {device} 上用 {n} 个句子训练“{task}”（{size}，{params} 个参数）。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="520" />
            <source>Stopping after the current step…</source>
            <translation>将在当前步完成后停止…</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="518" />
            <source>Paused at step {step}. Resume to go on, or save a checkpoint.</source>
            <translation>已在第 {step} 步暂停。点击“继续”接着训练，或保存检查点。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="522" />
            <source>Stopped at step {step}.</source>
            <translation>已在第 {step} 步停止。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/training.py" line="524" />
            <source>Finished after {step} steps.</source>
            <translation>训练完成，共 {step} 步。</translation>
        </message>
        <message>
            <source>Cross-attention</source>
            <translation type="vanished">交叉注意力</translation>
        </message>
        <message>
            <source>Encoder self-attention</source>
            <translation type="vanished">编码器自注意力</translation>
        </message>
        <message>
            <source>Decoder self-attention</source>
            <translation type="vanished">解码器自注意力</translation>
        </message>
    </context>
    <context>
        <name>TypingGuide</name>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="34" />
            <source>Adjective order</source>
            <translation>形容词的位置</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="35" />
            <source>Negation: ne … pas</source>
            <translation>否定：ne … pas</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="36" />
            <source>Plural agreement</source>
            <translation>复数配合</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="37" />
            <source>Object pronoun before the verb</source>
            <translation>宾语代词放在动词前</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="38" />
            <source>Contraction: de + le → du</source>
            <translation>缩合：de + le → du</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="39" />
            <source>的: possession</source>
            <translation>“的”：表示所属</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="40" />
            <source>Measure words</source>
            <translation>量词</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="41" />
            <source>Place before the verb: 在…上</source>
            <translation>地点放在动词前：在…上</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="42" />
            <source>Motion verb + 到</source>
            <translation>趋向动词 + 到</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="43" />
            <source>To be: am, is, are</source>
            <translation>be 动词：am、is、are</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="44" />
            <source>Questions</source>
            <translation>疑问句</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="45" />
            <source>Did not / cannot see: 没看见, 看不见</source>
            <translation>没看见 / 看不见：结果补语的否定</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="46" />
            <source>Symbols</source>
            <translation>符号</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="47" />
            <source>Greetings and set phrases</source>
            <translation>问候语和常用语</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="48" />
            <source>A noun phrase alone: the black cat</source>
            <translation>单独的名词短语：the black cat</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="49" />
            <source>There is / there are</source>
            <translation>There is / there are（“有”）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="50" />
            <source>Possessive 's</source>
            <translation>所有格 's</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="51" />
            <source>Where, who, what, how many?</source>
            <translation>where、who、what、how many 疑问句</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="52" />
            <source>Comparatives: bigger than</source>
            <translation>比较级：bigger than</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="53" />
            <source>Present progressive: am eating</source>
            <translation>现在进行时：am eating</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="54" />
            <source>Can / cannot: savoir, 会</source>
            <translation>can / cannot：savoir、会</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="55" />
            <source>Partitives: du, de l', une tasse de</source>
            <translation>部分冠词：du、de l'、une tasse de</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="56" />
            <source>Weather and days</source>
            <translation>天气和星期</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="57" />
            <source>Negation: 不, 没</source>
            <translation>否定：不、没</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="61" />
            <source>Nouns</source>
            <translation>名词</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="62" />
            <source>Adjectives</source>
            <translation>形容词</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="63" />
            <source>Verbs</source>
            <translation>动词</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="64" />
            <source>Pronouns</source>
            <translation>代词</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="65" />
            <source>Determiners</source>
            <translation>限定词</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="66" />
            <source>Prepositions</source>
            <translation>介词</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="67" />
            <source>Function words</source>
            <translation>虚词</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="69" />
            <source>Other words</source>
            <translation>其他词</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="89" />
            <source>&lt;b&gt;Try a sentence&lt;/b&gt; (click it: it goes to the source box)</source>
            <translation>&lt;b&gt;试试这些句子&lt;/b&gt;（点一下，句子就会填进源句框）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="95" />
            <source>&lt;b&gt;Words the model knows&lt;/b&gt; (double-click one to add it)</source>
            <translation>&lt;b&gt;模型认识的词&lt;/b&gt;（双击可把词加进源句）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="98" />
            <source>filter the words…</source>
            <translation>筛选词语…</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="123" />
            <source>No model is loaded.</source>
            <translation>尚未加载模型。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="128" />
            <source>This model's source vocabulary ({count} entries), alphabetically. A word it lacks is cut into pieces or becomes an unknown token.</source>
            <translation>这个模型的源语言词表（共 {count} 项），按字母顺序排列。词表里没有的词会被切成小片段，或者变成未知词元。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="132" />
            <source>This demo model learned a small grammar: it knows these {count} words and nothing else; any other word becomes &lt;unk&gt;, and the translation turns to nonsense.</source>
            <translation>这个演示模型只学过一套小语法：它只认识下面这 {count} 个词，别的词都会变成 &lt;unk&gt;，译文也就乱了套。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="139" />
            <source>{phenomenon}:  {sentence}</source>
            <translation>{phenomenon}：{sentence}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="142" />
            <source>The model translates it as: {target}</source>
            <translation>模型的译文：{target}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/typing_guide.py" line="196" />
            <source>… {count} more: type in the filter to narrow the list</source>
            <translation>……还有 {count} 个：在筛选框里输入文字可缩小范围</translation>
        </message>
    </context>
    <context>
        <name>Verifier</name>
        <message>
            <location filename="../../viz_app/widgets/verifier_badge.py" line="37" />
            <source>axes do not match the tokens</source>
            <translation>坐标轴与词元不匹配</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/verifier_badge.py" line="38" />
            <source>NaN or infinite weights</source>
            <translation>权重为 NaN 或无穷大</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/verifier_badge.py" line="39" />
            <source>weight on masked keys</source>
            <translation>被掩码屏蔽的键上有权重</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/verifier_badge.py" line="40" />
            <source>rows that do not sum to 1</source>
            <translation>有些行之和不为 1</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/verifier_badge.py" line="152" />
            <source>The verifier found problems in this trace:</source>
            <translation>校验器在这份注意力轨迹中发现了问题：</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/verifier_badge.py" line="64" />
            <source>{kind} · layer {layer} · head {head}</source>
            <translation>{kind} · 第 {layer} 层 · 头 {head}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/verifier_badge.py" line="78" />
            <source>Problems in this trace</source>
            <translation>注意力轨迹中的问题</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/verifier_badge.py" line="80" />
            <source>The attention of this trace breaks what a model promises (weight only where the mask allows, rows summing to 1). Treat its pictures with care.</source>
            <translation>这份注意力轨迹违背了模型应有的性质（只在掩码允许的位置有权重、每行之和为 1）。请谨慎解读它的图。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/verifier_badge.py" line="90" />
            <source>Close</source>
            <translation>关闭</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/verifier_badge.py" line="63" />
            <source>{kind} · layer {layer}</source>
            <translation>{kind} · 第 {layer} 层</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/verifier_badge.py" line="86" />
            <source>where</source>
            <translation>位置</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/verifier_badge.py" line="86" />
            <source>problem</source>
            <translation>问题</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/verifier_badge.py" line="86" />
            <source>details</source>
            <translation>详情</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/verifier_badge.py" line="140" />
            <source>✓ rows sum to 1, masks respected</source>
            <translation>✓ 每行之和均为 1，掩码全部生效</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/verifier_badge.py" line="141" />
            <source>The verifier checked every attention map of this trace: each row sums to 1, no weight falls on a masked key, and no value is NaN.</source>
            <translation>校验器检查了本次运行的每一张注意力图：每行之和都为 1，被掩码遮住的键上没有权重，也没有 NaN 值。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/verifier_badge.py" line="148" />
            <source>⚠ 1 problem</source>
            <translation>⚠ 1 个问题</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/verifier_badge.py" line="153" />
            <source>Click for the full list.</source>
            <translation>点击查看完整列表。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/verifier_badge.py" line="148" />
            <source>⚠ {count} problems</source>
            <translation>⚠ {count} 个问题</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/verifier_badge.py" line="151" />
            <source>… and {count} more</source>
            <translation>……还有 {count} 个</translation>
        </message>
    </context>
    <context>
        <name>Walkthrough</name>
        <message>
            <location filename="../../viz_app/dialogs/walkthrough.py" line="28" />
            <source>How this attention weight was computed</source>
            <translation>这个注意力权重是怎样算出来的</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/walkthrough.py" line="73" />
            <source>② softmax over the whole row (bar: weight; under it: key, score)</source>
            <translation>② 对整行做 softmax（柱高：权重；下方：键与分数）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/walkthrough.py" line="74" />
            <source>③ output of the head = Σⱼ weightⱼ · vⱼ</source>
            <translation>③ 该头的输出 = Σⱼ 权重ⱼ · vⱼ</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/walkthrough.py" line="102" />
            <source>Click a cell of the heatmap to see how its weight was computed.</source>
            <translation>点击热力图中的一个格子，看看它的权重是怎样算出来的。</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/walkthrough.py" line="62" />
            <source>mask: blocked  →  score −∞, weight 0</source>
            <translation>掩码：禁止关注  →  分数 −∞，权重为 0</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/walkthrough.py" line="53" />
            <source>qᵢ · kⱼ = {dot}</source>
            <translation>qᵢ · kⱼ = {dot}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/walkthrough.py" line="54" />
            <source>÷ √dₖ = ÷ {scale}  →  {scaled}</source>
            <translation>÷ √dₖ = ÷ {scale}  →  {scaled}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/walkthrough.py" line="72" />
            <source>① query and key vectors of head {head} (dₖ = {d})</source>
            <translation>① 头 {head} 的查询向量和键向量（dₖ = {d}）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/walkthrough.py" line="133" />
            <source>{kind} · layer {layer} · head {head}</source>
            <translation>{kind} · 第 {layer} 层 · 头 {head}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/walkthrough.py" line="135" />
            <source>query “{query}” (row {row})  →  key “{key}” (column {col})</source>
            <translation>查询“{query}”（第 {row} 行）  →  键“{key}”（第 {col} 列）</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/walkthrough.py" line="245" />
            <source>output Σ w·v</source>
            <translation>输出 Σ w·v</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/walkthrough.py" line="260" />
            <source>this head is switched off: the layer receives zeros instead</source>
            <translation>这个头已关闭：该层收到的是全零向量</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/walkthrough.py" line="56" />
            <source>+ position bias {bias}  →  {sum}</source>
            <translation>+ 位置偏置 {bias}  →  {sum}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/walkthrough.py" line="59" />
            <source>mask: may attend (adds 0)  →  score {score}</source>
            <translation>掩码：允许关注（加 0）  →  分数 {score}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/walkthrough.py" line="65" />
            <source>softmax over the row: e^{score} / Σ e^score  =  {weight}</source>
            <translation>对整行做 softmax：e^{score} / Σ e^分数  =  {weight}</translation>
        </message>
        <message>
            <location filename="../../viz_app/widgets/walkthrough.py" line="246" />
            <source>{w} × v({token})</source>
            <translation>{w} × v({token})</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/walkthrough_binding.py" line="110" />
            <source>Computing…</source>
            <translation>正在计算…</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/walkthrough_binding.py" line="76" />
            <source>A sentence this long is not walked through: replaying it would keep every map the window computes one at a time.</source>
            <translation>这么长的句子无法逐步演示：重放计算会保留所有注意力图，而窗口一次只计算一张。</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/walkthrough_binding.py" line="81" />
            <source>This view combines every layer and head, so no single computation made this cell: switch to the weights view and click a cell of one attention map.</source>
            <translation>这个视图综合了所有层和所有头，这个格子并不是某一次计算的结果：请切换到权重视图，再点击某一张注意力图中的格子。</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/walkthrough_binding.py" line="86" />
            <source>This view does not show one head's attention weights: set Show to weights or scores, then click a cell.</source>
            <translation>这个视图显示的不是某一个头的注意力权重：请把“显示”设为权重或分数，再点击格子。</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/walkthrough_binding.py" line="94" />
            <source>This row is not computed yet at this step: step forward, then click it.</source>
            <translation>这一步还没有算到这一行：先往前走几步，再点击它。</translation>
        </message>
        <message>
            <location filename="../../viz_app/window/walkthrough_binding.py" line="101" />
            <source>The map shows the mean of the heads; this is head {head}, the head that gives this cell the most weight.</source>
            <translation>图中显示的是各头平均；这里展示的是头 {head}，也就是给这个格子权重最大的那个头。</translation>
        </message>
        <message>
            <location filename="../../viz_app/workers/walkthrough_worker.py" line="78" />
            <source>the model now loaded does not reproduce this map: run the sentence again, then click the cell</source>
            <translation>当前载入的模型算不出这张图：请重新运行这个句子，再点击格子</translation>
        </message>
        <message>
            <location filename="../../viz_app/workers/walkthrough_worker.py" line="82" />
            <source>The walkthrough is not available for this model: its attention adds a position bias inside the module, so q, k and v alone do not give its scores.</source>
            <translation>这个模型无法逐步演示：它的注意力在模块内部加了位置偏置，仅凭 q、k、v 算不出它的分数。</translation>
        </message>
        <message>
            <source>The rollout combines every layer and head, so no single computation made this cell: switch to the weights view and click a cell of one attention map.</source>
            <translation type="vanished">注意力展开综合了所有层和所有头，这个格子并不是某一次计算的结果：请切换到权重视图，再点击某一张注意力图中的格子。</translation>
        </message>
    </context>
    <context>
        <name>Worker</name>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="15" />
            <source>source truncated to {room} tokens (max_len {max_len}; it has {length})</source>
            <translation>源句被截断为 {room} 个词元（max_len 为 {max_len}；原有 {length} 个）</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="16" />
            <source>source truncated to {room} tokens (max_len {max_len}; it has about {length})</source>
            <translation>源句被截断为 {room} 个词元（max_len 为 {max_len}；原文约 {length} 个）</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="18" />
            <source>target truncated to {room} tokens (it has {length})</source>
            <translation>目标句被截断为 {room} 个词元（原有 {length} 个）</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="19" />
            <source>target truncated to {room} tokens (it has about {length})</source>
            <translation>目标句被截断为 {room} 个词元（原文约 {length} 个）</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="20" />
            <source>padding limited to the model's max_len of {max_len}</source>
            <translation>填充长度受限于模型的 max_len（{max_len}）</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="21" />
            <source>{count} source words not in the vocabulary, shown as &lt;unk&gt;</source>
            <translation>有 {count} 个源词不在词表中，显示为 &lt;unk&gt;</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="22" />
            <source>1 source word not in the vocabulary, shown as &lt;unk&gt;</source>
            <translation>有 1 个源词不在词表中，显示为 &lt;unk&gt;</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="23" />
            <source>{count} target words not in the vocabulary, shown as &lt;unk&gt;</source>
            <translation>有 {count} 个目标词不在词表中，显示为 &lt;unk&gt;</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="24" />
            <source>1 target word not in the vocabulary, shown as &lt;unk&gt;</source>
            <translation>有 1 个目标词不在词表中，显示为 &lt;unk&gt;</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="25" />
            <source>generation stopped after {count} tokens without producing &lt;eos&gt;</source>
            <translation>已生成 {count} 个词元仍未产生 &lt;eos&gt;，生成已停止</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="26" />
            <source>{heads} heads is not a usual split of width {d_model} (usual: {likely}); if the maps look wrong, open the model again with another head count</source>
            <translation>把宽度 {d_model} 分成 {heads} 个头并不常见（常见的是 {likely}）；如果注意力图看起来不对，请换一个头数重新打开模型</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="28" />
            <source>every head attends evenly to every token of a test sentence: the head count ({heads}) or the weights may be wrong</source>
            <translation>在测试句上，每个头对所有词元的注意力都是均匀的：头数（{heads}）或权重可能有误</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="30" />
            <source>all heads attend alike on a test sentence ({where}): the head count ({heads}) may be wrong</source>
            <translation>在测试句上，所有头的注意力都一模一样（{where}）：头数（{heads}）可能有误</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="32" />
            <source>every map of this sentence would take {size} GB: each map is computed when it is shown</source>
            <translation>这个句子的全部注意力图需要 {size} GB，因此每张图在显示时才计算</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="34" />
            <source>a sentence this long is decoded greedily (beam search and sampling are not available)</source>
            <translation>这么长的句子只用贪心解码（无法使用束搜索和采样）</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="36" />
            <source>pre-softmax scores are not kept for a sentence this long: the weights are shown</source>
            <translation>这么长的句子不保留 softmax 之前的分数，显示的是注意力权重</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="38" />
            <source>attribution, contributions and value zeroing are not computed for a sentence this long</source>
            <translation>这么长的句子不计算归因、贡献和值置零</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="40" />
            <source>{options} not used: an Attention Scope checkpoint carries its own vocabulary, special tokens, tokenizer and head count</source>
            <translation>未使用 {options}：Attention Scope 检查点自带词表、特殊词元、分词器和头数</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="42" />
            <source>{options} not used: a Hugging Face model carries its own vocabulary, special tokens, tokenizer and head count</source>
            <translation>未使用 {options}：Hugging Face 模型自带词表、特殊词元、分词器和头数</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="44" />
            <source>{file}: {settings} ignored: a tokenizer reads only regular files of its own folder, and never tokenises at random</source>
            <translation>已忽略 {file} 中的 {settings}：分词器只读取自己文件夹里的普通文件，也从不随机分词</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="46" />
            <source>read with nn.Transformer's default post-norm and ReLU, which its weights cannot confirm: a model built with norm_first=True or activation="gelu" needs --norm-position pre or --activation gelu</source>
            <translation>已按 nn.Transformer 的默认设置读取（后置层归一化、ReLU 激活），但权重本身无法证实：若模型构建时开启了 norm_first，或把激活函数设成了 gelu，请加上 --norm-position pre 或 --activation gelu</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="49" />
            <source>read with nn.Transformer's default post-norm, which its weights cannot confirm: a model built with norm_first=True needs --norm-position pre</source>
            <translation>已按 nn.Transformer 的默认设置读取（后置层归一化），但权重本身无法证实：若模型构建时开启了 norm_first，请加上 --norm-position pre</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="51" />
            <source>read with nn.Transformer's default ReLU, which its weights cannot confirm: a model built with activation="gelu" needs --activation gelu</source>
            <translation>已按 nn.Transformer 的默认设置读取（ReLU 激活），但权重本身无法证实：若模型构建时把激活函数设成了 gelu，请加上 --activation gelu</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="54" />
            <source>this sentence is outside the small grammar this model was trained on ({task}): its translation may be wrong</source>
            <translation>这个句子超出了该模型训练时所用的小语法（{task}），译文可能有误</translation>
        </message>
        <message>
            <location filename="../../viz_app/scope/notices.py" line="56" />
            <source>the model's translation is wrong: its grammar translates this sentence as “{expected}”</source>
            <translation>模型的译文有误：按它的语法，这句话应译为“{expected}”</translation>
        </message>
        <message>
            <location filename="../../viz_app/workers/model_worker.py" line="70" />
            <source>the source sentence is empty</source>
            <translation>源句为空</translation>
        </message>
        <message>
            <location filename="../../viz_app/workers/model_worker.py" line="67" />
            <source>the GPU ran out of memory: try a shorter sentence or run on the CPU (start with {setting})</source>
            <translation>GPU 显存不足：请尝试更短的句子，或在 CPU 上运行（启动时设置 {setting}）</translation>
        </message>
        <message>
            <location filename="../../viz_app/workers/model_worker.py" line="201" />
            <source>no model is loaded: open one with File ▸ Open model…</source>
            <translation>尚未加载模型：请通过“文件 ▸ 打开模型…”打开一个模型</translation>
        </message>
        <message>
            <source>this sentence is outside the small grammar the {task} demo model was trained on: its translation may be wrong</source>
            <translation type="vanished">这句话不在 {task} 演示模型训练所用的小语法之内：它的译文可能有误</translation>
        </message>
        <message>
            <source>source truncated to {room} tokens (max_len {max_len}; it has at least {length})</source>
            <translation type="vanished">源句被截断为 {room} 个词元（max_len 为 {max_len}；原有至少 {length} 个）</translation>
        </message>
        <message>
            <source>target truncated to {room} tokens (it has at least {length})</source>
            <translation type="vanished">目标句被截断为 {room} 个词元（原有至少 {length} 个）</translation>
        </message>
        <message>
            <source>{options} not used: a {format} model carries its own vocabulary, special tokens, tokenizer and head count</source>
            <translation type="vanished">未使用 {options}：{format} 模型自带词表、特殊词元、分词器和头数</translation>
        </message>
    </context>
</TS>
